package readrule

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// TestSameOpen: the file another opener holds as path passes only when it
// is the file checked: path leads to it under the rule, and a descriptor
// other than the checked one is open on it (the opener's). A folder
// swapped for a link while the opener opened and swapped back leaves the
// path right but no such descriptor: refused.
func TestSameOpen(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.db"), filepath.Join(dir, "b.db")
	os.WriteFile(a, []byte("a"), 0o644)
	os.WriteFile(b, []byte("b"), 0o644)
	f, err := Open(a, []string{dir})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := SameOpen(f, a, []string{dir}); !errors.Is(err, ErrRefused) {
		t.Errorf("no other descriptor open on it: %v, want refused", err)
	}
	other, err := os.Open(a) // what the opener holds
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := SameOpen(f, a, []string{dir}); err != nil {
		t.Errorf("held by the opener: %v", err)
	}
	if err := SameOpen(f, b, []string{dir}); !errors.Is(err, ErrRefused) {
		t.Errorf("opened as another file: %v, want refused", err)
	}
	if err := SameOpen(f, a, []string{filepath.Join(dir, "elsewhere")}); !errors.Is(err, ErrRefused) {
		t.Errorf("opened outside the folders: %v, want refused", err)
	}
}
