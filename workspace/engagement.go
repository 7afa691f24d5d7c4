package workspace

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"cairn"
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
//	## Notes
//	- 2026-03-19T10:23:00Z compress-before done; merge next
//
//	## Earlier engagements
//	…
//
// Stopping edits the status line in place; starting anew keeps the old
// text under "## Earlier engagements". Readers take no lock: writes are
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
	e := &cairn.Engagement{}
	notes := false
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, "\r")
		if line == earlierHeading {
			break
		} else if strings.HasPrefix(line, "## ") {
			notes = strings.TrimSpace(line[3:]) == "Notes"
			continue
		}
		if notes {
			if v, ok := strings.CutPrefix(line, "- "); ok {
				e.Notes = append(e.Notes, v)
			}
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
				return nil, cairn.Errorf(cairn.EINVALID, "%s/%s: %s is not a time such as 2026-03-19T10:23:00Z: %q.", Dir, cairn.EngageFile, m[1], v)
			}
			if m[1] == "Started" {
				e.Started = t
			} else {
				e.Stopped = &t
			}
		}
	}
	if e.ID == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "%s/%s has no \"- ID: …\" line.", Dir, cairn.EngageFile)
	}
	return e, nil
}

// StartEngagement makes id the active engagement, with an optional first
// note. Starting the engagement that is already active adds the note.
// Returns ECONFLICT if another engagement is active and EINVALID for an id
// with spaces.
func (w *Workspace) StartEngagement(id, note string) (*cairn.Engagement, error) {
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
			return w.writeEngagement(text)
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# Engagement\n\n- ID: %s\n- Status: active\n- Session: %s\n- Started: %s\n\n## Notes\n",
		id, w.Session, now.UTC().Format(time.RFC3339))
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
