package loop

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/workspace"
)

// TestWriteFullContext_Concurrent: SessionStarts of one session at once
// (a session resumed in two terminals) each write the full context; every
// one succeeds, the file is one of them whole, and no temporary file is
// left behind.
func TestWriteFullContext_Concurrent(t *testing.T) {
	w := workspace.New(t.TempDir())
	texts := make([]string, 8)
	errs := make([]error, len(texts))
	var wg sync.WaitGroup
	for i := range texts {
		texts[i] = strings.Repeat(string(rune('a'+i)), 200_000)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = writeFullContext(w, "0d0d0d0d-0000-4000-8000-000000000001", texts[i])
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("writer %d: %v", i, err)
		}
	}
	dir := filepath.Join(w.Root, workspace.Dir, "context")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "0d0d0d0d-0000-4000-8000-000000000001.xml" {
		t.Fatalf("context folder holds %v, want the one file", entries)
	}
	if info, err := entries[0].Info(); err != nil {
		t.Error(err)
	} else if info.Mode().Perm() != 0o644 {
		t.Errorf("the file's mode is %v, want -rw-r--r--", info.Mode())
	}
	got, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil || !slices.Contains(texts, string(got)) {
		t.Errorf("the file is none of the texts whole (%d bytes, %v)", len(got), err)
	}
}
