package assemble

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// A View is what an assembled context is made from: the mission, the frame
// tree and the frame being worked on, its log, and the files to index or
// carry. Views are read from stores by [Assembler]; tests build them.
type View struct {
	Mission *cairn.Mission   // nil: no core
	Tree    *cairn.FrameTree // nil or empty: no stack
	Current *cairn.Frame     // nil: no stack
	Log     []*cairn.Round   // the current frame's last rounds, oldest first; the last ones with their blocks
	// Logged counts the current frame's rounds, Log's and those before
	// them (0: Log holds them all).
	Logged int
	// Spawns names, for a subagent's session in Log, the round whose tool
	// call spawned it ("5f0c2a1e#7").
	Spawns map[string]string
	Files  []File     // index entries beside phase outputs and artifacts
	Relay  []Document // workspace files carried whole when they fit
}

// Empty reports whether v holds nothing to assemble: no mission, no
// current frame, no files, no relay documents.
func (v *View) Empty() bool {
	return v.Mission == nil && v.Current == nil && len(v.Files) == 0 && len(v.Relay) == 0
}

// A File is one entry of the index: a path to read on demand.
type File struct {
	Path string `json:"path"`
	Note string `json:"note,omitempty"`
}

// A Document is a workspace file carried in the context.
type Document struct {
	Name string `json:"name"`
	Text string `json:"text"`
}

// logLines bounds the current frame's log: at full fidelity its last
// logRounds rounds are carried as rounds (prompt, an index line per step,
// the answer) after index lines of up to logFull earlier ones; compacted,
// the last logFull rounds are index lines.
const (
	logFull      = 20
	logRounds    = 6    // rounds carried whole at full fidelity
	logSteps     = 30   // step index lines per carried round; earlier ones are counted
	logText      = 1500 // characters of a carried round's prompt and of its answer
	logCompacted = 5
	relayHead    = 20 // lines of a relay file at compacted fidelity
)

// LogRounds is how many of the current frame's last rounds an [Assembler]
// loads with their blocks: those the full log carries as rounds. It loads
// at most LogLines transcript lines of them: a longer round stays an
// index line (cairn show prints it).
const (
	LogRounds = logRounds
	LogLines  = 600
)

// A field is one named piece of an item's text.
type field struct{ name, text string }

// items builds the budget items of v, in document order, with the fields
// each shows at each fidelity.
func (v *View) items() *doc {
	d := &doc{tree: v.Tree}
	if m := v.Mission; m != nil {
		d.core = d.add(cairn.SectionCore, "core", 0, cairn.Dropped, coreFields(m))
	}
	if v.Current != nil && v.Tree != nil {
		d.path = append(v.Tree.Ancestors(v.Current.ID), v.Current)
		n := len(d.path)
		for k, a := range d.path[:n-1] {
			// The parent matters most, then the root, then the rest by
			// nearness; an ancestor keeps its bare element even when dropped.
			imp := 2 + k
			switch k {
			case n - 2:
				imp = 0
			case 0:
				imp = 1
			}
			it := d.add(cairn.SectionAncestors, a.ID, -imp, cairn.Dropped, ancestorFields(a))
			it.frame, it.depth = a, k
			d.ancestor = append(d.ancestor, it)
			for i, c := range v.Tree.Children(a.ID) {
				if c.ID == d.path[k+1].ID || c.Status == cairn.FrameInvalidated {
					continue
				}
				// Siblings of the current frame before those of ancestors;
				// completed before in progress before planned before the
				// rest; later ones before earlier ones.
				imp := (n-2-k)*1_000_000 + statusRank(c.Status)*10_000 - i
				it := d.add(cairn.SectionSiblings, c.ID, -imp, cairn.Dropped, siblingFields(c))
				it.frame, it.depth = c, k+1
				d.siblings[c.ID] = it
			}
		}
		cur := v.Current
		d.criteria = &pinned{title: cur.Title, criteria: cur.SuccessCriteria, titleLen: -1, criteriaLen: -1}
		d.work = d.add(cairn.SectionCurrent, "work", 0, cairn.Dropped, workFields(cur))
		d.work.frame, d.work.depth = cur, n-1
		for i, c := range v.Tree.Children(cur.ID) {
			if c.Status != cairn.FrameInvalidated {
				it := d.add(cairn.SectionCurrent, c.ID, -(100_000 + statusRank(c.Status)*1000 - i), cairn.Dropped, siblingFields(c))
				it.frame, it.depth = c, n
				d.siblings[c.ID] = it
			}
		}
		if len(v.Log) > 0 {
			d.log = d.add(cairn.SectionCurrent, "log", -1_000_000, cairn.Dropped, logFields(cur, v.Log, max(v.Logged, len(v.Log)), v.Spawns))
			d.log.frame, d.log.depth = cur, n-1
		}
	}
	for _, r := range v.Relay {
		d.relay = append(d.relay, d.add(cairn.SectionRelay, r.Name, 0, cairn.Dropped, relayFields(r)))
	}
	if files := v.files(d.path); len(files) > 0 {
		d.index = d.add(cairn.SectionIndex, "index", 0, cairn.Dropped, indexFields(files))
	}
	return d
}

// statusRank orders siblings by how much their content helps the current
// frame: results first, then parallel work, then plans.
func statusRank(s cairn.FrameStatus) int {
	switch s {
	case cairn.FrameCompleted:
		return 4
	case cairn.FrameInProgress:
		return 3
	case cairn.FramePlanned:
		return 2
	}
	return 1
}

// files returns the index: the mission's phase outputs, the artifacts of
// the frames in view, then v.Files, without repeats.
func (v *View) files(p []*cairn.Frame) []File {
	var out []File
	seen := make(map[string]bool)
	add := func(f File) {
		if f.Path != "" && !seen[f.Path] {
			seen[f.Path] = true
			out = append(out, f)
		}
	}
	if m := v.Mission; m != nil && m.Phase != nil {
		for _, o := range m.Phase.Outputs {
			add(File{Path: o, Note: "output of an earlier phase"})
		}
	}
	artifacts := func(f *cairn.Frame) {
		for _, art := range f.Artifacts {
			add(File{Path: art, Note: "from " + f.ID + " " + f.Title})
		}
	}
	for _, a := range p {
		artifacts(a)
		for _, c := range v.Tree.Children(a.ID) {
			if c.Status != cairn.FrameInvalidated {
				artifacts(c)
			}
		}
	}
	for _, f := range v.Files {
		add(f)
	}
	return out
}

func coreFields(m *cairn.Mission) [4][]field {
	var phase, task string
	var outputs []string
	if p := m.Phase; p != nil {
		phase, task, outputs = p.Name, p.Task, p.Outputs
		if p.Reason == cairn.PhaseRecovery {
			phase += " (restarted after the context ran out: read files on demand, not all at once)"
		}
	}
	compacted := []field{{"MISSION", m.Text}, {"PHASE", phase}, {"TASK", task}, {"WORKSPACE", m.Workspace}}
	full := slices.Clone(compacted)
	full = append(full, field{"PROGRESS", m.Progress})
	if len(outputs) > 0 {
		full = append(full, field{"EARLIER OUTPUTS", strings.Join(outputs, ", ")})
	}
	return [4][]field{full, compacted, {{"MISSION", oneLine(m.Text, 160)}, {"PHASE", phase}}, nil}
}

func ancestorFields(f *cairn.Frame) [4][]field {
	full := []field{{"title", f.Title}, {"success-criteria", f.SuccessCriteria}}
	if f.Results != "" {
		full = append(full, field{"results", f.Results})
	}
	if len(f.Decisions) > 0 {
		full = append(full, field{"decisions", strings.Join(f.Decisions, "; ")})
	}
	return [4][]field{full, {{"title", f.Title}, {"success-criteria", f.CriteriaCompacted()}}, {{"title", f.Title}}, nil}
}

func siblingFields(f *cairn.Frame) [4][]field {
	full := []field{{"title", f.Title}}
	compacted := []field{{"title", f.Title}}
	if f.Results != "" {
		full = append(full, field{"results", f.Results})
		compacted = append(compacted, field{"results", f.Compacted()})
	} else {
		full = append(full, field{"success-criteria", f.SuccessCriteria})
		compacted = append(compacted, field{"success-criteria", f.CriteriaCompacted()})
	}
	if len(f.Artifacts) > 0 {
		full = append(full, field{"artifacts", strings.Join(f.Artifacts, ", ")})
	}
	if len(f.Decisions) > 0 {
		full = append(full, field{"decisions", strings.Join(f.Decisions, "; ")})
	}
	if len(f.DependsOn) > 0 {
		full = append(full, field{"depends-on", strings.Join(f.DependsOn, ", ")})
	}
	if f.Owner != "" && f.Status == cairn.FrameInProgress {
		full = append(full, field{"owner", f.Owner})
		compacted = append(compacted, field{"owner", f.Owner})
	}
	return [4][]field{full, compacted, {{"title", f.Title}}, nil}
}

func workFields(f *cairn.Frame) [4][]field {
	var full, compacted []field
	if f.Results != "" {
		full = append(full, field{"results", f.Results})
		compacted = append(compacted, field{"results", f.Compacted()})
	}
	if len(f.Decisions) > 0 {
		full = append(full, field{"decisions", strings.Join(f.Decisions, "; ")})
		compacted = append(compacted, field{"decisions", strings.Join(f.Decisions, "; ")})
	}
	if len(f.Artifacts) > 0 {
		full = append(full, field{"artifacts", strings.Join(f.Artifacts, ", ")})
	}
	var one []field
	if f.Results != "" {
		one = []field{{"results", oneLine(f.Compacted(), 160)}}
	}
	return [4][]field{full, compacted, one, nil}
}

func logFields(f *cairn.Frame, log []*cairn.Round, logged int, spawns map[string]string) [4][]field {
	name := func(r *cairn.Round) string {
		if by := spawns[r.SessionID]; by != "" {
			_, agent, _ := strings.Cut(r.SessionID, "-agent-")
			return fmt.Sprintf("agent-%s#%d (subagent spawned by %s)", agent, r.Seq, by)
		}
		return fmt.Sprintf("%s#%d", shortID(r.SessionID), r.Seq)
	}
	earlier := logged - len(log) // rounds before log, not read
	index := func(rs []*cairn.Round, n int, b *strings.Builder) {
		if k := earlier + max(0, len(rs)-n); k > 0 {
			fmt.Fprintf(b, "(%d earlier rounds)\n", k)
		}
		for _, r := range rs[max(0, len(rs)-n):] {
			fmt.Fprintf(b, "%s %s → %s\n", name(r), oneLine(r.UserPreview, 80), oneLine(r.AgentPreview, 80))
		}
	}
	lines := func(n int) string {
		var b strings.Builder
		index(log, n, &b)
		return strings.TrimSuffix(b.String(), "\n")
	}
	// Full: the last rounds that have their blocks, as rounds.
	whole := 0
	for i := len(log) - 1; i >= 0 && whole < logRounds && len(log[i].Blocks) > 0; i-- {
		whole++
	}
	full := lines(logFull)
	if whole > 0 {
		var b strings.Builder
		index(log[:len(log)-whole], logFull, &b)
		for _, r := range log[len(log)-whole:] {
			writeRound(&b, name(r), r)
		}
		full = strings.TrimSuffix(b.String(), "\n")
	}
	one := fmt.Sprintf("%d rounds; list them with: cairn rounds --frame %s", logged, f.ID)
	return [4][]field{{{"log", full}}, {{"log", lines(logFull)}}, {{"log", one}}, nil}
}

// writeRound renders one round of the frame's own history: its prompt, an
// index line per step (tool calls with their key argument and outcome),
// and its answer.
func writeRound(b *strings.Builder, name string, r *cairn.Round) {
	prompt, answer := "", ""
	for _, bl := range r.Blocks {
		switch {
		case bl.Kind == cairn.UserText && !bl.Sidechain && prompt == "":
			prompt = bl.Content
		case bl.Kind == cairn.AssistantText && !bl.Sidechain && strings.TrimSpace(bl.Content) != "":
			answer = bl.Content
		}
	}
	fmt.Fprintf(b, "--- round %s", name)
	if !r.StartedAt.IsZero() {
		fmt.Fprintf(b, " %s", r.StartedAt.UTC().Format("2006-01-02T15:04Z"))
	}
	b.WriteString("\n")
	if prompt = strings.TrimSpace(prompt); prompt != "" {
		fmt.Fprintf(b, "prompt: %s\n", cutText(prompt, logText))
	}
	steps := cairn.Steps(r.Blocks, r.LastLine)
	if len(steps) > logSteps {
		fmt.Fprintf(b, "(%d earlier steps)\n", len(steps)-logSteps)
		steps = steps[len(steps)-logSteps:]
	}
	for _, s := range steps {
		if len(s.Calls) > 0 {
			fmt.Fprintf(b, "%s\n", s.IndexLine())
		}
	}
	if answer = strings.TrimSpace(answer); answer != "" {
		fmt.Fprintf(b, "answer: %s\n", cutText(answer, logText))
	}
}

// cutText keeps the first n characters of s, saying how many were cut.
func cutText(s string, n int) string {
	total := utf8.RuneCountInString(s)
	if total <= n {
		return s
	}
	k := 0
	for i := range s {
		if k == n {
			s = s[:i]
			break
		}
		k++
	}
	return s + fmt.Sprintf("… (%d more characters)", total-n)
}

func shortID(id string) string { return id[:min(len(id), 8)] }

func relayFields(d Document) [4][]field {
	lines := strings.Split(strings.TrimRight(d.Text, "\n"), "\n")
	head := strings.Join(lines[:min(len(lines), relayHead)], "\n")
	if len(lines) > relayHead {
		head += fmt.Sprintf("\n(%d more lines in %s)", len(lines)-relayHead, d.Name)
	}
	one := fmt.Sprintf("%d lines, %d bytes: read %s if you need it", len(lines), len(d.Text), d.Name)
	return [4][]field{{{"text", d.Text}}, {{"text", head}}, {{"text", one}}, nil}
}

func indexFields(files []File) [4][]field {
	var full, paths strings.Builder
	for _, f := range files {
		fmt.Fprintf(&paths, "- %s\n", f.Path)
		if f.Note != "" {
			fmt.Fprintf(&full, "- %s (%s)\n", f.Path, f.Note)
		} else {
			fmt.Fprintf(&full, "- %s\n", f.Path)
		}
	}
	const tail = "Read these ONLY if you need more context."
	dirs := make(map[string]bool)
	var ds []string
	for _, f := range files {
		if d := path.Dir(f.Path); !dirs[d] {
			dirs[d] = true
			ds = append(ds, d+"/")
		}
	}
	one := fmt.Sprintf("%d files under %s; cairn tree --artifacts lists them.", len(files), oneLine(strings.Join(ds, ", "), 120))
	return [4][]field{
		{{"files", "FILES AVAILABLE:\n" + full.String() + tail}},
		{{"files", "FILES AVAILABLE:\n" + paths.String() + tail}},
		{{"files", one}},
		nil,
	}
}

// oneLine returns the first line of s, cut to at most n runes with "…".
func oneLine(s string, n int) string {
	s, _, cut := strings.Cut(strings.TrimSpace(s), "\n")
	// Only the first n+1 runes are looked at: a tool's output can be one
	// line of megabytes.
	k, end := 0, 0
	for i := range s {
		if k == n-1 {
			end = i
		} else if k == n {
			return s[:end] + "…"
		}
		k++
	}
	if cut {
		return s + "…"
	}
	return s
}
