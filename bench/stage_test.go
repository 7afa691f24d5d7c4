package bench

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestStage: each binary and the cairn-full beside it are copied byte for
// byte, executable, into a folder of their own.
func TestStage(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"a/cairn", "a/cairn-full", "b/cairn"} {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	staged, err := Stage(filepath.Join(dir, "run"), filepath.Join(dir, "a/cairn"), filepath.Join(dir, "b/cairn"))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{staged[0]: "a/cairn", filepath.Join(filepath.Dir(staged[0]), "cairn-full"): "a/cairn-full", staged[1]: "b/cairn"}
	for path, text := range want {
		data, err := os.ReadFile(path)
		if err != nil || !bytes.Equal(data, []byte(text)) {
			t.Errorf("%s: %q, %v; want %q", path, data, err, text)
		}
		if info, err := os.Stat(path); err != nil || info.Mode()&0o111 == 0 {
			t.Errorf("%s: not executable (%v)", path, err)
		}
	}
	if filepath.Dir(staged[0]) == filepath.Dir(staged[1]) {
		t.Errorf("both staged in %s", filepath.Dir(staged[0]))
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(staged[1]), "cairn-full")); err == nil {
		t.Errorf("a cairn-full staged beside b, which had none")
	}
}
