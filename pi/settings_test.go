package pi

import (
	"os"
	"path/filepath"
	"testing"
)

// TestCompactionSettings: pi's defaults; the agent folder's settings.json
// under the project's .pi/settings.json, key by key; a broken file sets
// nothing.
func TestCompactionSettings(t *testing.T) {
	home, cwd := t.TempDir(), t.TempDir()
	if got := CompactionSettings(home, cwd); got != (Compaction{true, 16384, 20000}) || got.CompactAt(200_000) != 183_616 {
		t.Errorf("defaults: %+v", got)
	}
	write := func(path, s string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, "settings.json"), `{"compaction":{"reserveTokens":4000,"keepRecentTokens":9000},"theme":"dark"}`)
	write(filepath.Join(cwd, ".pi", "settings.json"), `{"compaction":{"keepRecentTokens":5000}}`)
	if got := CompactionSettings(home, cwd); got != (Compaction{true, 4000, 5000}) || got.CompactAt(20_000) != 16_000 {
		t.Errorf("merged: %+v", got)
	}
	write(filepath.Join(cwd, ".pi", "settings.json"), `{"compaction":{"enabled":false}`)
	if got := CompactionSettings(home, cwd); got != (Compaction{true, 4000, 9000}) {
		t.Errorf("a broken project file: %+v", got)
	}
	write(filepath.Join(cwd, ".pi", "settings.json"), `{"compaction":{"enabled":false}}`)
	if got := CompactionSettings(home, cwd); got.CompactAt(20_000) != 0 {
		t.Errorf("disabled: %+v", got)
	}
}
