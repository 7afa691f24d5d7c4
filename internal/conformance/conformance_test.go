package conformance_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A source is a session a harness's real client wrote: three prompts,
// each answered in several steps with tool calls (Gemini CLI's, opencode's
// and pi's made by TestGenerateSources).
type source struct {
	name  string
	agent string
	glob  string // its file, from this folder
}

var sources = []source{
	{"claude-code", cairn.AgentClaudeCode, "../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"},
	{"codex", cairn.AgentCodex, "../../testdata/codex/three-rounds.jsonl"},
	{"gemini", cairn.AgentGemini, "testdata/gemini-*.jsonl"},
	{"opencode", cairn.AgentOpencode, "testdata/opencode-*.jsonl"},
	{"pi", cairn.AgentPi, "testdata/pi-*.jsonl"},
}

// engagement tags every round of each source but the first: what extract
// takes.
const engagement = "conformance"

// A rig is a scratch store holding every source.
type rig struct {
	st  surgery.Store
	ids map[string]string // source name → session id
}

func newRig(t *testing.T) *rig {
	t.Helper()
	ctx := context.Background()
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	r := &rig{st: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)},
		ids: map[string]string{}}
	tags := sqlite.NewTagStore(db)
	for _, s := range sources {
		paths, _ := filepath.Glob(s.glob)
		if len(paths) != 1 {
			t.Fatalf("sample of %s: %v", s.name, paths)
		}
		im := &inscribe.Importer{Store: struct {
			*sqlite.InscriptionStore
			*sqlite.LineStore
		}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: formatOf(s.agent)}
		rep, err := im.Import(ctx, paths)
		if err != nil || len(rep.Files) != 1 || rep.Files[0].Status == inscribe.StatusFailed {
			t.Fatalf("import %s: %v %+v", paths[0], err, rep)
		}
		id := rep.Files[0].SessionID
		r.ids[s.name] = id
		rounds, err := r.st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, FromSeq: 1})
		if err != nil || len(rounds) < 3 {
			t.Fatalf("%s: %d rounds, %v; want 3 or more", s.name, len(rounds), err)
		}
		var seqs []int
		for _, rd := range rounds[1:] {
			seqs = append(seqs, rd.Seq)
		}
		if err := tags.TagRounds(ctx, id, seqs, engagement, ""); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// An operation cuts a source's session for a target's client.
type operation struct {
	name string
	cut  func(t *testing.T, r *rig, src source, tgt target) (*cairn.Materialization, error)
}

var operations = []operation{
	{"revive", func(t *testing.T, r *rig, src source, tgt target) (*cairn.Materialization, error) {
		return partlyKept(t, r, r.ids[src.name], tgt.agent)
	}},
	{"compress-before", func(t *testing.T, r *rig, src source, tgt target) (*cairn.Materialization, error) {
		return surgery.CompressBefore(context.Background(), r.st, r.ids[src.name], surgery.Point{Seq: 2}, cairn.FullFidelity)
	}},
	{"extract", func(t *testing.T, r *rig, src source, tgt target) (*cairn.Materialization, error) {
		return surgery.ExtractEngagement(context.Background(), r.st, r.ids[src.name], engagement, cairn.FullFidelity)
	}},
	{"merge", func(t *testing.T, r *rig, src source, tgt target) (*cairn.Materialization, error) {
		// With the next harness's session: a merge crosses from both.
		other := sources[0]
		for i, s := range sources {
			if s.name == src.name {
				other = sources[(i+1)%len(sources)]
			}
		}
		return surgery.Merge(context.Background(), r.st, r.ids[src.name], r.ids[other.name], cairn.FullFidelity)
	}},
}

// partlyKept is revive in the largest budget that keeps a round of the
// session only in part (its prompt and its latest steps, the others named
// in the index), with another round in full after it when a budget does:
// where a writer reads a round again from some of its lines. Without such
// a budget, revive in the default one.
func partlyKept(t *testing.T, r *rig, id, client string) (*cairn.Materialization, error) {
	t.Helper()
	ctx := context.Background()
	st := r.st
	st.Limits = surgery.Limits{Budget: 1 << 30, Client: client}
	whole, err := surgery.Revive(ctx, st, id, "", "", cairn.FullFidelity)
	if err != nil {
		return nil, err
	}
	var last *cairn.Materialization // a round kept in part, the last in full
	// From above what the output needs with a sixteenth kept for the
	// client, down until nothing fits.
	for budget := surgery.Estimate(whole)*17/16 + 2000; budget > 0; budget -= 20 {
		st.Limits.Budget = budget
		m, err := surgery.Revive(ctx, st, id, "", "", cairn.FullFidelity)
		if err != nil {
			break
		}
		full := m.FullPieces()
		for i, p := range full {
			switch {
			case len(p.Keep) == 0:
			case i < len(full)-1:
				return m, nil
			case last == nil:
				last = m
			}
		}
	}
	if last != nil {
		return last, nil
	}
	t.Logf("no budget keeps a round of %s in part: revive in the default budget", id)
	st.Limits = surgery.Limits{Budget: surgery.AutoBudget, Client: client}
	return surgery.Revive(ctx, st, id, "", "", cairn.FullFidelity)
}

// A cell is one run: an operation of a source resumed by one release of a
// target's client.
type cell struct {
	op      operation
	src     source
	tgt     target
	release string // newest | oldest
	oi, si  int
	ti      int
}

// corner reports whether a cell runs by default: every direction by
// revive on the newest clients, each other operation on one direction a
// source (every source and every target once), and the oldest releases on
// each operation's.
func corner(c cell) bool {
	diagonal := (c.si+c.oi)%len(sources) == c.ti
	if c.release == "newest" {
		return c.oi == 0 || diagonal
	}
	return diagonal
}

// TestConformance runs the matrix: every source × operation × target ×
// release (a corner by default; CAIRN_CONFORMANCE=full runs all of it),
// checking the request each real client sends when it resumes the output.
func TestConformance(t *testing.T) {
	full := os.Getenv("CAIRN_CONFORMANCE") == "full"
	if !full {
		t.Logf("a corner of the matrix; CAIRN_CONFORMANCE=full runs all of it")
	}
	r := newRig(t)
	for oi, op := range operations {
		for si, src := range sources {
			for ti, tgt := range targets {
				for _, release := range tgt.releases {
					c := cell{op: op, src: src, tgt: tgt, release: release, oi: oi, si: si, ti: ti}
					if !full && !corner(c) {
						continue
					}
					t.Run(fmt.Sprintf("%s/%s-to-%s/%s", op.name, src.name, tgt.name, release), func(t *testing.T) {
						run(t, r, c)
					})
				}
			}
		}
	}
}

func run(t *testing.T, r *rig, c cell) {
	var cl *client
	for _, x := range c.tgt.clients(t) {
		if x.name == c.release {
			cl = &x
		}
	}
	if cl == nil {
		// The helpers fail in CI without it.
		t.Skipf("REAL-CLIENT END-TO-END TEST NOT RUN: no %s release of %s", c.release, c.tgt.name)
	}
	m, err := c.op.cut(t, r, c.src, c.tgt)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("output: %s", shapeOf(m))
	prompt := "conformance " + c.op.name + " " + c.src.name + " to " + c.tgt.name + ": carry on."
	body := c.tgt.resume(t, *cl, r.st, m, prompt)
	for _, p := range check(t, r, c.tgt.api, body, m) {
		t.Error(p)
	}
}

// check returns what the request gets wrong about m.
func check(t *testing.T, r *rig, api string, body []byte, m *cairn.Materialization) []string {
	t.Helper()
	ts, err := turns(api, body)
	if err != nil {
		return []string{"the request does not read: " + err.Error()}
	}
	var bad []string
	if api == "messages" {
		bad = append(bad, fakeapi.CheckRequest(body, 0)...)
	}
	bad = append(bad, pairing(ts)...)
	bad = append(bad, order(ts, m)...)
	bad = append(bad, index(t, r, ts, m)...)
	if len(bad) > 0 {
		bad = append(bad, "the request's turns:\n"+outline(ts))
	}
	return bad
}

// A want is what a kept round must show: a prompt, an answer's text, a
// tool's output.
type want struct {
	kind string // prompt | answer | result
	text string
	step string // a result's: its call's message; a step's results come in any order
}

// wants is a kept round's prompts and steps in order, from its blocks as
// the store holds them (what the Markdown output shows): user texts,
// assistant texts, and each answered call's output at its call (a step's
// parallel results come in the order the client recorded them, or of the
// calls).
func wants(p *cairn.Piece) []want {
	results := map[string]string{}
	for _, b := range p.Round.Blocks {
		if b.Kind == cairn.ToolResult && !b.Sidechain {
			results[b.ToolID] = marker(b.Content)
		}
	}
	var out []want
	for _, b := range p.Round.Blocks {
		if b.Sidechain {
			continue
		}
		text := marker(b.Content)
		switch {
		case b.Kind == cairn.UserText && text != "":
			out = append(out, want{kind: "prompt", text: text})
		case b.Kind == cairn.AssistantText && text != "":
			out = append(out, want{kind: "answer", text: text})
		case b.Kind == cairn.ToolUse && results[b.ToolID] != "":
			out = append(out, want{"result", results[b.ToolID], b.MessageID})
		}
	}
	return out
}

// marker is the first line of s, trimmed, at most 100 bytes cut at a
// character: what any writer keeps of a text, whatever it wraps it in.
func marker(s string) string {
	s = strings.TrimSpace(s)
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(s)
	if len(s) > 100 {
		n := 100
		for n > 0 && !utf8.RuneStart(s[n]) {
			n--
		}
		s = s[:n]
	}
	return s
}

// A slot is one item of the request with the turn it is in.
type slot struct {
	turn int
	role string
	item
}

// order checks that each kept round's prompt is a user message of its own,
// in the rounds' order, before its steps, which are all there in order.
func order(ts []turn, m *cairn.Materialization) []string {
	var flatTs []slot
	for i, t := range ts {
		for _, it := range t.items {
			flatTs = append(flatTs, slot{i, t.role, it})
		}
	}
	var bad []string
	cur := 0
	promptTurn := map[int]int{} // piece → the turn of its first prompt
	full := m.FullPieces()
	for k, p := range full {
		from, prev := 0, want{}
		for _, w := range wants(p) {
			if w.kind != "result" || prev.kind != "result" || w.step != prev.step {
				from = cur
			}
			prev = w
			at := -1
			for j := from; j < len(flatTs); j++ {
				s := flatTs[j]
				ok := strings.Contains(s.text, w.text)
				switch w.kind {
				case "prompt":
					ok = ok && s.kind == "text" && s.role == "user"
				case "answer":
					ok = ok && s.kind == "text" && s.role == "assistant"
				}
				if ok {
					at = j
					break
				}
			}
			if at < 0 {
				where := "after what comes before it"
				if cur == 0 {
					where = "anywhere"
				}
				bad = append(bad, fmt.Sprintf("round %d of %s: the %s %.80q is not in the request %s", p.Round.Seq, short(p.Round.SessionID), w.kind, w.text, where))
				continue
			}
			if _, ok := promptTurn[k]; !ok && w.kind == "prompt" {
				promptTurn[k] = flatTs[at].turn
			}
			cur = max(cur, at+1)
		}
	}
	// Each prompt its own message: no other round's prompt in its turn.
	summary := strings.Split(surgery.Summary(m), "\n")
	for k, turnAt := range promptTurn {
		text := ts[turnAt].text()
		for _, l := range summary {
			// The summary names the rounds in full by their prompts.
			if l = strings.TrimSpace(l); l != "" {
				text = strings.ReplaceAll(text, l, "")
			}
		}
		for j, q := range full {
			if j == k {
				continue
			}
			for _, w := range wants(q) {
				if w.kind == "prompt" && w.text != "" && strings.Contains(text, w.text) && !strings.Contains(promptOf(full[k]), w.text) {
					bad = append(bad, fmt.Sprintf("round %d's prompt shares its user message (turn %d) with round %d's %.60q", full[k].Round.Seq, turnAt, q.Round.Seq, w.text))
				}
			}
		}
	}
	// Between two kept rounds' prompts, an answer.
	for k := 1; k < len(full); k++ {
		a, okA := promptTurn[k-1]
		b, okB := promptTurn[k]
		if !okA || !okB || b <= a {
			continue
		}
		answered := false
		for i := a + 1; i < b; i++ {
			if ts[i].role == "assistant" {
				answered = true
			}
		}
		if !answered {
			bad = append(bad, fmt.Sprintf("rounds %d and %d: two user messages (turns %d, %d) with no answer between", full[k-1].Round.Seq, full[k].Round.Seq, a, b))
		}
	}
	return bad
}

func promptOf(p *cairn.Piece) string {
	var b strings.Builder
	for _, w := range wants(p) {
		if w.kind == "prompt" {
			b.WriteString(w.text + "\n")
		}
	}
	return b.String()
}

// index checks that cairn's summary is in the request whole and names
// every round and step the output leaves out.
func index(t *testing.T, r *rig, ts []turn, m *cairn.Materialization) []string {
	t.Helper()
	var all strings.Builder
	for _, tn := range ts {
		all.WriteString(tn.text())
	}
	text := all.String()
	summary := surgery.Summary(m)
	var bad []string
	for _, l := range strings.Split(summary, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(text, l) {
			bad = append(bad, fmt.Sprintf("the summary's line %.80q is not in the request", l))
		}
	}
	for _, rd := range m.IndexRounds() {
		if !strings.Contains(summary, export.IndexLine(rd)) {
			bad = append(bad, fmt.Sprintf("round %d, left out, has no row in the index", rd.Seq))
		}
	}
	for _, p := range m.FullPieces() {
		if len(p.Keep) == 0 {
			continue
		}
		rounds, err := r.st.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: p.Round.SessionID, FromSeq: p.Round.Seq, ToSeq: p.Round.Seq, WithBlocks: true})
		if err != nil || len(rounds) != 1 {
			t.Fatalf("round %d: %v", p.Round.Seq, err)
		}
		for _, s := range cairn.Steps(rounds[0].Blocks, rounds[0].LastLine) {
			if p.Kept(s.FirstLine) {
				continue
			}
			named := false
			for _, e := range p.Index {
				if e.Names(p.Round.Seq, s.Seq) && strings.Contains(summary, e.Line) {
					named = true
				}
			}
			if !named {
				bad = append(bad, fmt.Sprintf("step %d.%d, left out, is not named in the index", p.Round.Seq, s.Seq))
			}
		}
	}
	return bad
}

// outline is the request's turns, one a line: role and items in short.
func outline(ts []turn) string {
	var b strings.Builder
	for i, t := range ts {
		fmt.Fprintf(&b, "  %d %s:", i, t.role)
		for _, it := range t.items {
			switch it.kind {
			case "text":
				fmt.Fprintf(&b, " text(%.50q)", strings.TrimSpace(it.text))
			case "call":
				fmt.Fprintf(&b, " call(%s %s)", it.name, it.id)
			case "result":
				fmt.Fprintf(&b, " result(%s %.30q)", it.id, strings.TrimSpace(it.text))
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

// shapeOf names each piece of m: a round in full, kept in part (which
// line ranges), or a row of the index.
func shapeOf(m *cairn.Materialization) string {
	var parts []string
	for _, p := range m.Pieces {
		what := "index row"
		switch {
		case p.Full && len(p.Keep) > 0:
			what = fmt.Sprintf("in part, lines %v", p.Keep)
		case p.Full:
			what = "in full"
		}
		parts = append(parts, fmt.Sprintf("%s round %d %s", short(p.Round.SessionID), p.Round.Seq, what))
	}
	return strings.Join(parts, "; ")
}
