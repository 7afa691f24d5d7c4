package claudetest

import (
	"os"
	"path/filepath"
	"testing"
)

func TestCompareVersions(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"2.1.197", "2.1.330", -1},
		{"2.1.330", "2.1.197", 1},
		{"2.1.330", "2.1.330", 0},
		{"2.10.0", "2.9.99", 1},
		{"2.1", "2.1.0", 0},
	} {
		if got := compareVersions(c.a, c.b); got != c.want {
			t.Errorf("compareVersions(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if compareVersions(Oldest, Newest) >= 0 {
		t.Errorf("versions.env: oldest %s is not older than newest %s", Oldest, Newest)
	}
}

// fakeClaude writes an executable that prints version as claude does.
func fakeClaude(t *testing.T, version string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "claude")
	if err := os.WriteFile(path, []byte("#!/bin/sh\necho '"+version+" (Claude Code)'\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestClients reads each binary's version instead of trusting its path: a
// binary of another release is reported by the version it prints.
func TestClients(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("CAIRN_CLAUDE", fakeClaude(t, Newest))
	t.Setenv("CAIRN_CLAUDE_OLDEST", fakeClaude(t, "2.1.100"))
	cs := Clients(t)
	if len(cs) != 2 || cs[0].Name != "newest" || cs[0].Version != Newest || cs[1].Name != "oldest" || cs[1].Version != "2.1.100" {
		t.Fatalf("Clients = %+v", cs)
	}
	if !cs[0].AtLeast(Oldest) || cs[1].AtLeast(Oldest) {
		t.Errorf("AtLeast(%s): newest %v, 2.1.100 %v", Oldest, cs[0].AtLeast(Oldest), cs[1].AtLeast(Oldest))
	}
	if _, err := binaryVersion(filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("binaryVersion of a missing file: no error")
	}
	if _, err := binaryVersion(fakeClaude(t, "garbage")); err == nil {
		t.Error("binaryVersion of a binary printing no version: no error")
	}
}
