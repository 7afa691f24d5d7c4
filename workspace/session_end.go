package workspace

import (
	"sort"

	"github.com/cairn-dev/cairn"
)

// EndSession is the sync a session's end runs by itself, when nobody ran
// cairn sync: state.json names the session as the last one, and what
// changed in the relay files since the last sync is recorded as a sync by
// this session. Unlike [Workspace.Sync] it never refuses (a session that
// recorded nothing ends too) and it marks no todo reviewed, since nobody
// reviewed them. It is idempotent: run again with nothing new, it writes
// nothing and reports no change.
func (w *Workspace) EndSession() (*SyncResult, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	var last syncRecord
	if err := readJSON(w.private(cairn.SyncFile), cairn.SyncFile, &schema{kind: "object"}, &last); err != nil {
		return nil, err
	}
	state, err := w.ReadState()
	if err != nil {
		return nil, err
	}
	if state.SessionID != w.Session {
		if state, err = w.updateState(func(*cairn.State) error { return nil }); err != nil {
			return nil, err
		}
	}
	files, err := w.fingerprints()
	if err != nil {
		return nil, err
	}
	res := &SyncResult{Previous: last.Time, State: state}
	for name, sum := range files {
		if last.Files[name] != sum {
			res.Changed = append(res.Changed, name)
		}
	}
	sort.Strings(res.Changed)
	if len(res.Changed) == 0 {
		return res, nil
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
	return res, w.recordSync(w.now())
}
