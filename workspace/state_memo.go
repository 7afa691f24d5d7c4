package workspace

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"sync"

	"github.com/cairn-dev/cairn"
)

// stateMemo keeps the last state.json each workspace root decoded in this
// process, keyed by the file's identity, size and modification time. A
// hook reads state.json several times (a session's end: its checkpoint's
// next step, its sync, the sync's stamp), and reading, checking and
// decoding it was 44 % of SessionEnd's CPU with 73 hand-offs recorded;
// every write replaces the file by a rename ([writeFiles]), which gives
// it a new identity, so a memo that still matches holds the file's bytes.
var stateMemo = struct {
	sync.Mutex
	byPath map[string]stateSeen
}{byPath: map[string]stateSeen{}}

// stateSeen is one decoded state.json and the file it came from.
type stateSeen struct {
	info  fs.FileInfo
	state *cairn.State
}

// stateDecodes counts the state.json files read and decoded; tests read it.
var stateDecodes int

// readStateFile returns the state.json at path decoded, or nil if there is
// none: a copy of the memo when the file is the one decoded last, else
// decoded now and remembered.
func readStateFile(path string) (*cairn.State, error) {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	stateMemo.Lock()
	seen, ok := stateMemo.byPath[path]
	stateMemo.Unlock()
	if ok && os.SameFile(seen.info, info) && seen.info.Size() == info.Size() && seen.info.ModTime().Equal(info.ModTime()) {
		return cloneState(seen.state), nil
	}
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+bytes.MinRead)) // one read, as os.ReadFile
	if _, err := buf.ReadFrom(f); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	data := buf.Bytes()
	s := newState()
	if err := decodeJSON(cairn.StateFile, data, stateSchema, s); err != nil {
		return nil, err
	}
	stateMemo.Lock()
	stateDecodes++
	stateMemo.byPath[path] = stateSeen{info, cloneState(s)}
	stateMemo.Unlock()
	return s, nil
}

// cloneState is a copy of s that shares nothing a caller may change.
func cloneState(s *cairn.State) *cairn.State {
	c := *s
	c.Progress.Completed = cloneStrings(s.Progress.Completed)
	c.Progress.Blocked = cloneStrings(s.Progress.Blocked)
	c.Progress.NextSteps = cloneStrings(s.Progress.NextSteps)
	c.Progress.Extra = maps.Clone(s.Progress.Extra)
	c.Extra = maps.Clone(s.Extra)
	if s.Handoffs != nil {
		c.Handoffs = make([]*cairn.Handoff, len(s.Handoffs))
		for i, h := range s.Handoffs {
			hc := *h
			if h.Done != nil {
				done := *h.Done
				hc.Done = &done
			}
			c.Handoffs[i] = &hc
		}
	}
	return &c
}

// cloneStrings copies list, keeping nil and empty apart (they encode as
// null and []).
func cloneStrings(list []string) []string {
	if list == nil {
		return nil
	}
	return append([]string{}, list...)
}
