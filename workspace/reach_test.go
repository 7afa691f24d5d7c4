package workspace_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestSituation_SymlinkOutside: a folder inside the workspace that is a
// symlink to a folder outside is refused as a situation, for reading and
// for writing, and nothing is written outside.
func TestSituation_SymlinkOutside(t *testing.T) {
	w, outside := MustInit(t), t.TempDir()
	root := w.Root
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Situation(filepath.Join(root, "escape")); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("Situation through the symlink: %v", err)
	}
	if _, err := w.FindBoard("escape"); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("FindBoard through the symlink: %v", err)
	}
	err := w.Checkpoint("escape", &cairn.Checkpoint{Done: "x", Time: time.Now()})
	if cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("Checkpoint through the symlink: %v", err)
	}
	if entries, _ := os.ReadDir(outside); len(entries) > 0 {
		t.Fatalf("written outside the workspace: %v", entries)
	}
	// A symlink that stays inside is fine.
	os.MkdirAll(filepath.Join(root, "real"), 0o755)
	os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "alias"))
	if got, err := w.Situation(filepath.Join(root, "alias")); err != nil || got != "real" {
		t.Fatalf("Situation of an inside symlink = %q, %v", got, err)
	}
}
