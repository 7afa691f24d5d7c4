package workspace

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// .cairn/engagement.md holds the engagement state: which workstream is
// active, who started it and when, and notes on where it stands, so that
// any actor entering the workspace can pick it up:
//
//	# Engagement
//
//	- ID: surgery
//	- Status: active
//	- Session: 5c0375b4
//	- Started: 2026-03-19T10:23:00Z
//
//	## Phases
//	- 2026-03-19T10:23:00Z start
//	- 2026-03-19T11:40:00Z merge
//
//	## Notes
//	- 2026-03-19T10:23:00Z compress-before done; merge next
//
//	## Earlier engagements
//	…
//
// A phase runs from its line's time to the next phase's (the last one to
// the engagement's Stopped time): these are the windows retroactive
// tagging and the matrix go by. A file without "## Phases" has one phase,
// "start", from Started to Stopped. Stopping edits the status line in
// place; starting anew keeps the old text under "## Earlier engagements",
// its headings demoted, where [Workspace.FindEngagements] still reads it. Readers take no lock: writes are
// atomic renames.

const earlierHeading = "## Earlier engagements"

var engagementField = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\s+(ID|Status|Session|Started|Stopped):\s*(.*)$`) })

// ActiveEngagement returns the id of the workspace's active engagement,
// and false if none is active. Automatic round tagging calls it; it reads
// one small file and takes no lock.
func ActiveEngagement(root string) (id string, ok bool, err error) {
	e, err := New(root).FindEngagement()
	if err != nil || e == nil || !e.Active {
		return "", false, err
	}
	return e.ID, true, nil
}

// FindEngagement returns the current (or last) engagement, or nil if the
// workspace never had one.
func (w *Workspace) FindEngagement() (*cairn.Engagement, error) {
	data, err := readFile(w.private(cairn.EngageFile))
	if err != nil || data == nil {
		return nil, err
	}
	return parseEngagement(string(data))
}

func parseEngagement(text string) (*cairn.Engagement, error) {
	head, _, _ := strings.Cut(text, "\n"+earlierHeading+"\n")
	return parseEngagementBlock(strings.Split(head, "\n"), 1)
}

var (
	engagementHeading = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#+\s+Engagement\s*$`) })
	sectionHeading    = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^#+\s+(.*?)\s*$`) })
	phaseLine         = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\s+(\S+)\s+(\S.*?)\s*$`) })
)

// parseEngagements reads every engagement of the file, the current one
// first, then the earlier ones newest first.
func parseEngagements(text string) ([]*cairn.Engagement, error) {
	lines := strings.Split(text, "\n")
	var out []*cairn.Engagement
	start := 0
	for i := 1; i <= len(lines); i++ {
		if i < len(lines) && !engagementHeading().MatchString(strings.TrimRight(lines[i], "\r")) {
			continue
		}
		e, err := parseEngagementBlock(lines[start:i], start+1)
		if err != nil {
			return nil, err
		}
		if e.ID != "" || len(out) == 0 {
			out = append(out, e)
		}
		start = i
	}
	return out, nil
}

// parseEngagementBlock parses one engagement's lines, the first being line
// first of the file. Its headings may be at any level.
func parseEngagementBlock(lines []string, first int) (*cairn.Engagement, error) {
	e := &cairn.Engagement{}
	section := ""
	type mark struct {
		name string
		at   time.Time
	}
	var marks []mark
	for i, line := range lines {
		line = strings.TrimRight(line, "\r")
		if m := sectionHeading().FindStringSubmatch(line); m != nil {
			if section == "earlier" || m[1] == "Earlier engagements" {
				section = "earlier"
				continue
			}
			section = m[1]
			continue
		}
		switch section {
		case "earlier":
			continue
		case "Notes":
			if v, ok := strings.CutPrefix(line, "- "); ok {
				e.Notes = append(e.Notes, v)
			}
			continue
		case "Phases":
			m := phaseLine().FindStringSubmatch(line)
			if m == nil {
				continue
			}
			t, err := time.Parse(time.RFC3339, m[1])
			if err != nil {
				return nil, cairn.Errorf(cairn.EINVALID, "%s/%s:%d: a phase line is \"- TIME NAME\" with a time such as 2026-03-19T10:23:00Z; got %q.", Dir, cairn.EngageFile, first+i, line)
			}
			if len(marks) > 0 && t.Before(marks[len(marks)-1].at) {
				return nil, cairn.Errorf(cairn.EINVALID, "%s/%s:%d: phase %s starts before the phase above it; phases are listed oldest first.", Dir, cairn.EngageFile, first+i, m[2])
			}
			marks = append(marks, mark{m[2], t.UTC()})
			continue
		}
		m := engagementField().FindStringSubmatch(line)
		if m == nil {
			continue
		}
		v := strings.TrimSpace(m[2])
		switch m[1] {
		case "ID":
			e.ID = v
		case "Status":
			e.Active = v == "active"
		case "Session":
			e.Session = v
		case "Started", "Stopped":
			t, err := time.Parse(time.RFC3339, v)
			if err != nil {
				return nil, cairn.Errorf(cairn.EINVALID, "%s/%s:%d: %s is not a time such as 2026-03-19T10:23:00Z: %q.", Dir, cairn.EngageFile, first+i, m[1], v)
			}
			if m[1] == "Started" {
				e.Started = t.UTC()
			} else {
				t = t.UTC()
				e.Stopped = &t
			}
		}
	}
	if e.ID == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "%s/%s has no \"- ID: …\" line.", Dir, cairn.EngageFile)
	}
	if len(marks) == 0 {
		marks = append(marks, mark{cairn.FirstEngagementPhase, e.Started})
	}
	for i, mk := range marks {
		p := cairn.EngagementPhase{EngagementID: e.ID, Seq: i + 1, Name: mk.name, StartedAt: mk.at}
		if i+1 < len(marks) {
			p.EndedAt = marks[i+1].at
		} else if e.Stopped != nil && !e.Active {
			p.EndedAt = *e.Stopped
		}
		e.Phases = append(e.Phases, p)
	}
	return e, nil
}

// FindEngagements returns every engagement the file records, the current
// one first, then the earlier ones newest first; nil if there is no file.
func (w *Workspace) FindEngagements() ([]*cairn.Engagement, error) {
	data, err := readFile(w.private(cairn.EngageFile))
	if err != nil || data == nil {
		return nil, err
	}
	return parseEngagements(string(data))
}

// StartEngagementPhase records a transition of the active engagement to
// phase name, now: the previous phase ends and this one begins. Returns
// ENOTFOUND if no engagement is active and EINVALID for a name with a line
// break or one that is the current phase's.
func (w *Workspace) StartEngagementPhase(name string) (*cairn.Engagement, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.ContainsAny(name, "\n\r") {
		return nil, cairn.Errorf(cairn.EINVALID, "A phase name is a word or a few, such as review or merge; got %q.", name)
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	data, err := readFile(w.private(cairn.EngageFile))
	if err != nil {
		return nil, err
	}
	var e *cairn.Engagement
	if data != nil {
		if e, err = parseEngagement(string(data)); err != nil {
			return nil, err
		}
	}
	if e == nil || !e.Active {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No engagement is active: start one with cairn engagement start ID.")
	}
	if cur := e.Phases[len(e.Phases)-1]; cur.Name == name {
		return nil, cairn.Errorf(cairn.EINVALID, "Engagement %s is already in phase %s (since %s).", e.ID, name, cur.StartedAt.Format(time.RFC3339))
	}
	return w.writeEngagement(addPhase(string(data), e, w.now(), name))
}

// addPhase appends a phase line to the current engagement's Phases
// section, creating it (with the implicit first phase) when the file has
// none.
func addPhase(text string, e *cairn.Engagement, now time.Time, name string) string {
	entry := fmt.Sprintf("- %s %s\n", now.UTC().Format(time.RFC3339), name)
	head, tail, found := strings.Cut(text, "\n"+earlierHeading)
	if found {
		tail = "\n" + earlierHeading + tail
	}
	lines := strings.SplitAfter(head, "\n")
	in, last := false, -1
	for i, line := range lines {
		l := strings.TrimRight(line, "\r\n")
		if m := sectionHeading().FindStringSubmatch(l); m != nil {
			in = m[1] == "Phases"
			if in {
				last = i
			}
			continue
		}
		if in && phaseLine().MatchString(l) {
			last = i
		}
	}
	if last < 0 { // no Phases section: add one before Notes
		first := e.Phases[0]
		section := fmt.Sprintf("## Phases\n- %s %s\n%s\n", first.StartedAt.Format(time.RFC3339), first.Name, entry)
		for i, line := range lines {
			if strings.TrimRight(line, "\r\n") == "## Notes" {
				return strings.Join(lines[:i], "") + section + strings.Join(lines[i:], "") + tail
			}
		}
		return strings.TrimRight(head, "\n") + "\n\n" + strings.TrimSuffix(section, "\n") + tail
	}
	if !strings.HasSuffix(lines[last], "\n") {
		lines[last] += "\n"
	}
	return strings.Join(lines[:last+1], "") + entry + strings.Join(lines[last+1:], "") + tail
}

// StartEngagement makes id the active engagement, with an optional first
// note. Starting the engagement that is already active adds the note.
// Returns ECONFLICT if another engagement is active and EINVALID for an id
// with spaces.
func (w *Workspace) StartEngagement(id, note string) (*cairn.Engagement, error) {
	return w.StartEngagementIn(id, "", note)
}

// StartEngagementIn is [Workspace.StartEngagement] with the name of the
// first phase ("" for [cairn.FirstEngagementPhase]); on the active
// engagement a phase name records a transition.
func (w *Workspace) StartEngagementIn(id, phase, note string) (*cairn.Engagement, error) {
	if id == "" || strings.ContainsAny(id, " \t\n") {
		return nil, cairn.Errorf(cairn.EINVALID, "An engagement id is one word, such as surgery or issue-5; got %q.", id)
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := w.private(cairn.EngageFile)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	text := string(data)
	now := w.now()
	if text != "" {
		old, err := parseEngagement(text)
		if err != nil {
			return nil, err
		}
		if old.Active && old.ID != id {
			return nil, cairn.Errorf(cairn.ECONFLICT, "Engagement %s is active (since %s): stop it first with cairn engagement stop.",
				old.ID, old.Started.UTC().Format(time.RFC3339))
		}
		if old.Active {
			if note = oneLine(note); note != "" {
				text = addNote(text, now, note)
			}
			if phase = strings.TrimSpace(phase); phase != "" && phase != old.Phases[len(old.Phases)-1].Name {
				if text, err = w.reparse(text, now, phase); err != nil {
					return nil, err
				}
			}
			return w.writeEngagement(text)
		}
	}
	var b strings.Builder
	if phase = strings.TrimSpace(phase); phase == "" {
		phase = cairn.FirstEngagementPhase
	}
	fmt.Fprintf(&b, "# Engagement\n\n- ID: %s\n- Status: active\n- Session: %s\n- Started: %s\n\n## Phases\n- %s %s\n\n## Notes\n",
		id, w.Session, now.UTC().Format(time.RFC3339), now.UTC().Format(time.RFC3339), phase)
	if note = oneLine(note); note != "" {
		fmt.Fprintf(&b, "- %s %s\n", now.UTC().Format(time.RFC3339), note)
	}
	if text != "" {
		b.WriteString("\n" + earlierHeading + "\n\n" + demote(text))
	}
	return w.writeEngagement(b.String())
}

// StopEngagement marks the active engagement stopped. Returns ENOTFOUND if
// none is active.
func (w *Workspace) StopEngagement() (*cairn.Engagement, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	path := w.private(cairn.EngageFile)
	data, err := readFile(path)
	if err != nil {
		return nil, err
	}
	var e *cairn.Engagement
	if data != nil {
		if e, err = parseEngagement(string(data)); err != nil {
			return nil, err
		}
	}
	if e == nil || !e.Active {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No engagement is active.")
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i, line := range lines {
		if strings.TrimRight(line, "\r\n") == earlierHeading {
			break
		}
		if m := engagementField().FindStringSubmatch(strings.TrimRight(line, "\r\n")); m != nil && m[1] == "Status" {
			lines[i] = fmt.Sprintf("- Status: stopped\n- Stopped: %s\n", w.now().UTC().Format(time.RFC3339))
			break
		}
	}
	return w.writeEngagement(strings.Join(lines, ""))
}

// reparse adds a phase to text, re-reading the engagement it holds.
func (w *Workspace) reparse(text string, now time.Time, phase string) (string, error) {
	e, err := parseEngagement(text)
	if err != nil {
		return "", err
	}
	return addPhase(text, e, now, phase), nil
}

func (w *Workspace) writeEngagement(text string) (*cairn.Engagement, error) {
	e, err := parseEngagement(text)
	if err != nil {
		return nil, err
	}
	return e, writeFile(w.private(cairn.EngageFile), []byte(text))
}

// addNote appends a note at the end of the Notes section.
func addNote(text string, now time.Time, note string) string {
	entry := fmt.Sprintf("- %s %s\n", now.UTC().Format(time.RFC3339), note)
	head, tail, found := strings.Cut(text, "\n"+earlierHeading)
	if !found {
		return strings.TrimRight(text, "\n") + "\n" + entry
	}
	return strings.TrimRight(head, "\n") + "\n" + entry + "\n" + earlierHeading + tail
}

// demote turns an engagement file into an entry of a later one's history:
// its headings go two levels down so they stay out of the current one's.
func demote(text string) string {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	for i, line := range lines {
		if strings.HasPrefix(line, "#") {
			lines[i] = "##" + line
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
