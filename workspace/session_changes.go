package workspace

import (
	"fmt"
	"os"
	"sort"

	"github.com/cairn-dev/cairn"
)

// sessionsDir holds, per session, the relay files' state when its latest
// run started and what its earlier runs changed:
// .cairn/sessions/<session>.json.
const sessionsDir = "sessions"

// SessionChanges is what a session changed in the relay files while it
// ran: the decisions it recorded and the todos it added, finished or
// blocked, each named as "ADR-002 Title" or "TODO-003 Title", and the
// files it wrote, as its end named them.
type SessionChanges struct {
	Decisions    []string `json:"decisions,omitempty"`
	TodosAdded   []string `json:"todos_added,omitempty"`
	TodosDone    []string `json:"todos_done,omitempty"`
	TodosBlocked []string `json:"todos_blocked,omitempty"`
	Files        []string `json:"files,omitempty"`
}

// A sessionRecord is a session's file in sessionsDir: the state its latest
// run started from (the last decision's number, each todo's status) and
// what its runs changed so far.
type sessionRecord struct {
	LastADR int               `json:"last_adr"`
	Todos   map[string]string `json:"todos"`
	Changed SessionChanges    `json:"changed"`
}

// StartSession records the relay files' state as w.Session starts a run
// (a new conversation, a resume, after a compaction), so that its end can
// say what the run changed ([Workspace.SessionChanged]). What earlier runs
// of the session changed is kept; what others changed between runs is
// not the session's.
func (w *Workspace) StartSession() error {
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	path, err := w.sessionPath(w.Session)
	if err != nil {
		return err
	}
	var rec sessionRecord
	if err := readJSON(path, path, &schema{kind: "object"}, &rec); err != nil {
		return err
	}
	if err := w.snapshot(&rec); err != nil {
		return err
	}
	return w.writeSessionRecord(path, &rec)
}

// SessionChanged returns what w.Session changed in the relay files, from
// the start of its first run that [Workspace.StartSession] recorded to
// now, leaving out what others changed between its runs, with files (what
// its end found it wrote) added to those earlier runs wrote, and records
// it, so that running it again reports the same. A session whose start
// was not recorded (cairn installed while it ran) has changed nothing
// known in the relay files, and nothing is recorded for it.
func (w *Workspace) SessionChanged(files []string) (*SessionChanges, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	path, err := w.sessionPath(w.Session)
	if err != nil {
		return nil, err
	}
	data, err := readFile(path)
	if err != nil || data == nil {
		return &SessionChanges{Files: files}, err
	}
	var rec sessionRecord
	if err := decodeJSON(path, data, &schema{kind: "object"}, &rec); err != nil {
		return nil, err
	}
	c := &rec.Changed
	for _, f := range files {
		c.Files = addName(c.Files, f)
	}
	decisions, err := w.FindDecisions()
	if err != nil {
		return nil, err
	}
	for _, d := range decisions {
		if d.Number > rec.LastADR {
			c.Decisions = addName(c.Decisions, fmt.Sprintf("ADR-%03d %s", d.Number, d.Title))
		}
	}
	todos, err := w.ReadTodos()
	if err != nil {
		return nil, err
	}
	for _, t := range todos.Todos {
		name := t.ID + " " + t.Title
		was, known := rec.Todos[t.ID]
		if !known {
			c.TodosAdded = addName(c.TodosAdded, name)
		}
		if t.Status == was {
			continue
		}
		switch t.Status {
		case cairn.TodoCompleted:
			c.TodosDone = addName(c.TodosDone, name)
		case cairn.TodoBlocked:
			c.TodosBlocked = addName(c.TodosBlocked, name)
		}
	}
	if err := w.snapshot(&rec); err != nil {
		return nil, err
	}
	return c, w.writeSessionRecord(path, &rec)
}

// SessionChangesOf returns what session's ends recorded it changed
// ([Workspace.SessionChanged]), nil if nothing was recorded.
func (w *Workspace) SessionChangesOf(session string) (*SessionChanges, error) {
	path, err := w.sessionPath(session)
	if err != nil {
		return nil, err
	}
	data, err := readFile(path)
	if err != nil || data == nil {
		return nil, err
	}
	var rec sessionRecord
	if err := decodeJSON(path, data, &schema{kind: "object"}, &rec); err != nil {
		return nil, err
	}
	return &rec.Changed, nil
}

// snapshot sets rec's start state to the relay files' now.
func (w *Workspace) snapshot(rec *sessionRecord) error {
	decisions, err := w.FindDecisions()
	if err != nil {
		return err
	}
	rec.LastADR = 0
	for _, d := range decisions {
		rec.LastADR = max(rec.LastADR, d.Number)
	}
	todos, err := w.ReadTodos()
	if err != nil {
		return err
	}
	rec.Todos = make(map[string]string, len(todos.Todos))
	for _, t := range todos.Todos {
		rec.Todos[t.ID] = t.Status
	}
	return nil
}

func (w *Workspace) sessionPath(session string) (string, error) {
	if !NamesFile(session) {
		return "", cairn.Errorf(cairn.EINVALID, "Session id %q cannot name a file.", session)
	}
	return w.private(sessionsDir, session+".json"), nil
}

func (w *Workspace) writeSessionRecord(path string, rec *sessionRecord) error {
	if err := os.MkdirAll(w.private(sessionsDir), 0o755); err != nil {
		return err
	}
	return writeJSON(path, rec)
}

// addName adds name to names once, sorted (names start with their id).
func addName(names []string, name string) []string {
	for _, n := range names {
		if n == name {
			return names
		}
	}
	names = append(names, name)
	sort.Strings(names)
	return names
}
