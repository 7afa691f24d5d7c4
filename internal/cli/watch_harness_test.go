package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
)

// harnessFiles writes a Gemini CLI session and a Codex rollout, under
// names that do not say what they are, into a new folder.
func harnessFiles(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, from := range map[string]string{
		"a.jsonl": "../../gemini/testdata/0.61.0/session-2026-11-25T19-51-2de7feb0.jsonl",
		"b.jsonl": "../../testdata/codex/three-rounds.jsonl",
	} {
		data, err := os.ReadFile(from)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// agents lists the store's sessions as "agent rounds", sorted.
func agents(t *testing.T, store string) []string {
	t.Helper()
	db := sqlite.NewDB(store)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions, _, err := sqlite.NewSessionStore(db).FindSessions(context.Background(), cairn.SessionFilter{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, s := range sessions {
		out = append(out, fmt.Sprintf("%s %d", s.Agent, s.Rounds))
	}
	sort.Strings(out)
	return out
}

// imported is what `cairn import` makes of the files in dir.
func imported(t *testing.T, dir string) []string {
	t.Helper()
	store := filepath.Join(t.TempDir(), "cairn.db")
	if _, stderr, err := runMain(t, store, "import", dir); err != nil {
		t.Fatal(err, stderr)
	}
	return agents(t, store)
}

// TestServeWatch_Harnesses: serve --watch reads a Gemini CLI session and
// a Codex rollout as `cairn import` does. Before: both were stored as
// Claude Code transcripts of 0 rounds.
func TestServeWatch_Harnesses(t *testing.T) {
	dir := harnessFiles(t)
	want := imported(t, dir)
	if strings.Join(want, ",") != "codex 3,gemini 2" {
		t.Fatalf("cairn import: %q", want)
	}
	store := filepath.Join(t.TempDir(), "cairn.db")
	startServe(t, store, t.TempDir(), "--addr", "127.0.0.1:0", "--watch", dir)
	var got []string
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if got = agents(t, store); len(got) == 2 {
			break
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("serve --watch stored %q, cairn import %q", got, want)
	}
}

// TestRepairsHarness: sessions an older serve --watch stored as Claude
// Code's (agent claude-code, 0 rounds) are rebuilt as the harness's that
// wrote them, as `cairn import` reads them, by `cairn reindex` and by
// `cairn import` of the same files (with nothing stored again). Before:
// they stayed claude-code, 0 rounds.
func TestRepairsHarness(t *testing.T) {
	for _, c := range []struct {
		name string
		// run repairs the store; check is what its output must say.
		run   func(t *testing.T, store, dir string) (string, string, error)
		check func(out, stderr string) bool
	}{
		{"reindex", func(t *testing.T, store, _ string) (string, string, error) { return runMain(t, store, "reindex") },
			func(string, string) bool { return true }},
		{"import", func(t *testing.T, store, dir string) (string, string, error) { return runMain(t, store, "import", dir) },
			func(out, stderr string) bool {
				return strings.Contains(out, "2 unchanged") && strings.Contains(stderr, "stored as claude-code's, rebuilt as gemini's")
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := harnessFiles(t)
			want := strings.Join(imported(t, dir), ",")
			store := filepath.Join(t.TempDir(), "cairn.db")
			db := sqlite.NewDB(store)
			if err := db.Open(); err != nil {
				t.Fatal(err)
			}
			im := &inscribe.Importer{Store: importStore{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
			if _, err := im.Import(context.Background(), []string{dir}); err != nil {
				t.Fatal(err)
			}
			db.Close()
			if got := agents(t, store); strings.Join(got, ",") != "claude-code 0,claude-code 0" {
				t.Fatalf("read as Claude Code: %q", got)
			}
			if out, stderr, err := c.run(t, store, dir); err != nil || !c.check(out, stderr) {
				t.Fatalf("%s: %v\n%s%s", c.name, err, out, stderr)
			}
			if got := agents(t, store); strings.Join(got, ",") != want {
				t.Fatalf("after %s: %q, cairn import: %q", c.name, got, want)
			}
			if out, _, _ := runMain(t, store, "import", dir); !strings.Contains(out, "2 unchanged") {
				t.Fatalf("import after %s: %s", c.name, out)
			}
			if got := agents(t, store); strings.Join(got, ",") != want {
				t.Fatalf("after import: %q, cairn import: %q", got, want)
			}
		})
	}
}
