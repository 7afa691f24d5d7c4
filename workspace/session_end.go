package workspace

import (
	"sort"

	"github.com/cairn-dev/cairn"
)

// EndSession is a session's end: its exit checkpoint ([Workspace.Exit]
// of here, the checkpoint made of state.json by checkpoint, and why) and
// the sync it runs by itself, when nobody ran cairn sync: state.json names
// the session as the last one, and what changed in the relay files since
// the last sync is recorded as a sync by this session. Unlike
// [Workspace.Sync] it never refuses (a session that recorded nothing ends
// too) and it marks no todo reviewed, since nobody reviewed them. All of
// it happens under one lock, state.json read once (the checkpoint, the
// stamp and the sync's fingerprint are of the same bytes), its files
// written together ([writeFiles]: board, trace, state.json, the sync
// record last, two waits on the disk where one after the other took up to
// eight). It is idempotent: run again with nothing new, it writes nothing
// and reports no change.
func (w *Workspace) EndSession(here, why string, checkpoint func(*cairn.State) *cairn.Checkpoint) (*SyncResult, error) {
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()
	state, held, err := w.readState()
	if err != nil {
		return nil, err
	}
	_, edits, err := w.exit(here, checkpoint(state), why)
	if err != nil {
		return nil, err
	}
	res, more, err := w.endSync(state, held)
	if err != nil {
		return nil, err
	}
	return res, writeFiles(append(edits, more...)...)
}

// endSync is EndSession's sync for a caller that holds the lock and read
// state from held, the bytes state.json holds: what it found, and the
// files for the caller to write.
func (w *Workspace) endSync(state *cairn.State, held []byte) (*SyncResult, []edit, error) {
	var last syncRecord
	if err := readJSON(w.private(cairn.SyncFile), cairn.SyncFile, &schema{kind: "object"}, &last); err != nil {
		return nil, nil, err
	}
	var edits []edit
	stateFile := edit{path: w.path(cairn.StateFile), data: held}
	if state.SessionID != w.Session {
		var err error
		if stateFile, err = w.stamped(state, held); err != nil {
			return nil, nil, err
		}
		edits = append(edits, stateFile)
	}
	files, err := w.fingerprints(stateFile)
	if err != nil {
		return nil, nil, err
	}
	res := &SyncResult{Previous: last.Time, State: state}
	for name, sum := range files {
		if last.Files[name] != sum {
			res.Changed = append(res.Changed, name)
		}
	}
	sort.Strings(res.Changed)
	if len(res.Changed) == 0 {
		return res, edits, nil
	}
	decisions, err := w.FindDecisions()
	if err != nil {
		return nil, nil, err
	}
	for _, d := range decisions {
		if d.Number > last.LastADR {
			res.NewDecisions = append(res.NewDecisions, d)
		}
	}
	rec, err := w.syncEdit(w.now(), files)
	if err != nil {
		return nil, nil, err
	}
	return res, append(edits, rec), nil
}
