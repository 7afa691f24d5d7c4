package workspace

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sort"
	"time"

	"github.com/cairn-dev/cairn"
)

// syncedFiles are the files whose change counts as something recorded.
var syncedFiles = []string{cairn.ProjectFile, cairn.StateFile, cairn.DecisionsFile, cairn.TodosFile}

// A syncRecord is .cairn/last-sync.json: what the relay files held when
// the last sync ended, so the next one can tell whether anything was
// recorded since.
type syncRecord struct {
	Time    time.Time         `json:"time"`
	Session string            `json:"session"`
	LastADR int               `json:"last_adr"`
	Files   map[string]string `json:"files"` // name → sha256 of its bytes
}

// SyncResult is what [Workspace.Sync] found and did.
type SyncResult struct {
	Previous     time.Time         // the last sync, zero if none
	Changed      []string          // relay files changed since then
	NewDecisions []*cairn.Decision // records appended since then
	State        *cairn.State
	Todos        *cairn.TodoList // reviewed: last_review is now
}

// Sync is the end-of-session procedure: it applies change to the state,
// then checks that something was recorded since the last sync (state,
// decisions, todos or PROJECT.md changed, by cairn or by hand), stamps the
// state, marks the todos reviewed and remembers what the files hold.
// Returns ECONFLICT, and writes nothing, if nothing was recorded.
func (w *Workspace) Sync(change StateChange) (*SyncResult, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	if !change.IsZero() {
		if _, err := w.updateState(change.Apply); err != nil {
			return nil, err
		}
	}
	var last syncRecord
	if err := readJSON(w.private(cairn.SyncFile), cairn.SyncFile, &schema{kind: "object"}, &last); err != nil {
		return nil, err
	}
	files, err := w.fingerprints()
	if err != nil {
		return nil, err
	}
	res := &SyncResult{Previous: last.Time}
	for name, sum := range files {
		if last.Files[name] != sum {
			res.Changed = append(res.Changed, name)
		}
	}
	sort.Strings(res.Changed)
	if len(res.Changed) == 0 {
		return nil, cairn.Errorf(cairn.ECONFLICT, "Nothing recorded since the last sync (%s): update the state (cairn state set), "+
			"record a decision (cairn decide) or change a todo (cairn todo) first.", last.Time.Format(time.RFC3339))
	}

	// Everything is read afresh, under the lock, and stamped.
	if res.State, err = w.updateState(func(*cairn.State) error { return nil }); err != nil {
		return nil, err
	}
	if res.Todos, err = w.ReadTodos(); err != nil {
		return nil, err
	}
	now := w.now()
	res.Todos.LastReview = &now
	if err := writeJSON(w.path(cairn.TodosFile), res.Todos); err != nil {
		return nil, err
	}
	decisions, err := w.FindDecisions()
	if err != nil {
		return nil, err
	}
	for _, d := range decisions {
		if d.Number > last.LastADR {
			res.NewDecisions = append(res.NewDecisions, d)
		}
	}
	return res, w.recordSync(now)
}

// recordSync remembers what the relay files hold now. The caller holds
// the lock.
func (w *Workspace) recordSync(now time.Time) error {
	files, err := w.fingerprints()
	if err != nil {
		return err
	}
	e, err := w.syncEdit(now, files)
	if err != nil {
		return err
	}
	return writeFiles(e)
}

// syncEdit is the sync record of files, the relay files' fingerprints, at
// now, for a caller that holds the lock to write.
func (w *Workspace) syncEdit(now time.Time, files map[string]string) (edit, error) {
	decisions, err := w.FindDecisions()
	if err != nil {
		return edit{}, err
	}
	rec := syncRecord{Time: now, Session: w.Session, Files: files}
	for _, d := range decisions {
		rec.LastADR = max(rec.LastADR, d.Number)
	}
	data, err := json.MarshalIndent(rec, "", "  ")
	return edit{path: w.private(cairn.SyncFile), data: append(data, '\n')}, err
}

// fingerprints are the relay files' SHA-256s, of what pending edits will
// write where they name one, else of what it holds.
func (w *Workspace) fingerprints(pending ...edit) (map[string]string, error) {
	files := map[string]string{}
	for _, name := range syncedFiles {
		path := w.path(name)
		var data []byte
		if i := slices.IndexFunc(pending, func(e edit) bool { return e.path == path }); i >= 0 {
			data = pending[i].data
		} else {
			var err error
			if data, err = readFile(path); err != nil {
				return nil, err
			}
		}
		sum := sha256.Sum256(data)
		files[name] = hex.EncodeToString(sum[:])
	}
	return files, nil
}
