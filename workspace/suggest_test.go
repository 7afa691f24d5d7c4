package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/workspace"
)

// TestUpdateSuggestState_Unchanged: a state left as it was is not written
// again (the prompt hook updates it at every prompt); a changed one is,
// and reads back.
func TestUpdateSuggestState_Unchanged(t *testing.T) {
	w := workspace.New(t.TempDir())
	if err := os.Mkdir(filepath.Join(w.Root, ".cairn"), 0o755); err != nil {
		t.Fatal(err)
	}
	seen := func(s *workspace.SuggestState) error {
		s.Seen = map[string]int{"s1": 3}
		return nil
	}
	if err := w.UpdateSuggestState("f1", seen); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Root, ".cairn", "suggest", "f1.json")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.UpdateSuggestState("f1", seen); err != nil {
		t.Fatal(err)
	}
	if after, err := os.Stat(path); err != nil || !os.SameFile(before, after) {
		t.Errorf("an unchanged state was written again (a new file replaced it: %v)", err)
	}
	at := time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)
	if err := w.UpdateSuggestState("f1", func(s *workspace.SuggestState) error {
		s.Shown = map[string]time.Time{"size": at}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	s, err := w.ReadSuggestState("f1")
	if err != nil || !s.Shown["size"].Equal(at) || s.Seen["s1"] != 3 {
		t.Errorf("after a change: %+v, %v", s, err)
	}
}
