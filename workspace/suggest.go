package workspace

import (
	"encoding/json"
	"os"
	"path/filepath"
	"time"

	"cairn"
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
	s := &SuggestState{}
	data, err := readFile(w.suggestPath(frameID))
	if err != nil || data == nil {
		return s, err
	}
	if json.Unmarshal(data, s) != nil {
		return &SuggestState{}, nil
	}
	return s, nil
}

// UpdateSuggestState changes frameID's suggestion state under the
// workspace lock: read, fn, write atomically.
func (w *Workspace) UpdateSuggestState(frameID string, fn func(*SuggestState) error) error {
	if !cairn.ValidFrameID(frameID) && frameID != "" {
		return cairn.Errorf(cairn.EINVALID, "No frame %q.", frameID)
	}
	unlock, err := w.lock()
	if err != nil {
		return err
	}
	defer unlock()
	s, err := w.ReadSuggestState(frameID)
	if err != nil {
		return err
	}
	if err := fn(s); err != nil {
		return err
	}
	data, err := encodeJSON(s)
	if err != nil {
		return err
	}
	path := w.suggestPath(frameID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return writeFile(path, data)
}
