package workspace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn"
)

// A SuggestState is what the suggestion rules remember of a frame, in
// .cairn/suggest/<frame>.json: which kinds were shown (each at most once
// per frame), the areas its rounds touched, and the last round of each
// session the area rule read.
type SuggestState struct {
	Shown map[string]time.Time `json:"shown,omitempty"`
	Areas []string             `json:"areas,omitempty"`
	Seen  map[string]int       `json:"seen,omitempty"` // session → last round read
}

func (w *Workspace) suggestPath(frameID string) string {
	if frameID == "" {
		frameID = "_no-frame"
	}
	return w.private("suggest", frameID+".json")
}

// ReadSuggestState returns frameID's suggestion state, empty if none was
// recorded. A state file that is not JSON is treated as empty: it is
// cairn's own memory, rebuilt as it goes.
func (w *Workspace) ReadSuggestState(frameID string) (*SuggestState, error) {
	s, _, err := readSuggestState(w.suggestPath(frameID))
	return s, err
}

// readSuggestState returns the state at path and the bytes it was read
// from. A file that is not JSON is memory lost, not an error: the rules
// start afresh.
func readSuggestState(path string) (*SuggestState, []byte, error) {
	s := &SuggestState{}
	data, err := readFile(path)
	if err != nil || data == nil {
		return s, data, err
	}
	if json.Unmarshal(data, s) != nil {
		return &SuggestState{}, data, nil
	}
	return s, data, nil
}

// UpdateSuggestState changes frameID's suggestion state under the
// workspace lock: read, fn, write atomically. A state fn leaves as it was
// is not written again: the prompt hook calls this at every prompt, and
// most change nothing.
func (w *Workspace) UpdateSuggestState(frameID string, fn func(*SuggestState) error) error {
	if !cairn.ValidFrameID(frameID) && frameID != "" {
		return cairn.Errorf(cairn.EINVALID, "No frame %q.", frameID)
	}
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	path := w.suggestPath(frameID)
	s, old, err := readSuggestState(path)
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		return err
	}
	data, err := encodeJSON(s)
	if err != nil || bytes.Equal(data, old) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFile(path, data)
}
