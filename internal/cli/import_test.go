package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
)

const samples = "../../testdata/claudecode"

// runMain runs cairn with args against the store at storePath and returns
// its stdout, stderr and error.
func runMain(tb testing.TB, storePath string, args ...string) (string, string, error) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, &stderr)
	m.Getenv = func(k string) string {
		if k == "CAIRN_STORE" {
			return storePath
		}
		return ""
	}
	err := m.Run(context.Background(), args)
	return stdout.String(), stderr.String(), err
}

func TestImportReadBack(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	out, _, err := runMain(t, store, "import", samples)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "5 files (5 new, 0 appended, 0 unchanged, 0 rewritten, 0 failed)") {
		t.Fatalf("import summary: %s", out)
	}
	out, _, _ = runMain(t, store, "import", samples)
	if !strings.HasPrefix(out, "5 files (0 new, 0 appended, 5 unchanged") || !strings.Contains(out, "0 lines read") {
		t.Fatalf("second import: %s", out)
	}

	t.Run("Sessions", func(t *testing.T) {
		out, _, err := runMain(t, store, "sessions")
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(out, "5f0c2a1e-"); n != 4 {
			t.Fatalf("%d main sessions listed, want 4:\n%s", n, out)
		}
		out, _, _ = runMain(t, store, "sessions", "--subagents", "--json")
		var v struct{ Total int }
		if err := json.Unmarshal([]byte(out), &v); err != nil || v.Total != 5 {
			t.Fatalf("--json: %v %s", err, out)
		}
	})
	t.Run("Rounds", func(t *testing.T) {
		out, _, err := runMain(t, store, "rounds", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03")
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{
			"| # | time | roles | content |",
			`| 002 | `, `| user→assistant | [tool_use: Write] → "Saved ` + "`docs/migration-plan.md`",
		} {
			if !strings.Contains(out, want) {
				t.Errorf("rounds lacks %q:\n%s", want, out)
			}
		}
	})
	t.Run("ExportIsByteExact", func(t *testing.T) {
		for _, id := range []string{"5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03"} {
			out, _, err := runMain(t, store, "export", id)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := os.ReadFile(filepath.Join(samples, id+".jsonl"))
			if out != string(want) {
				t.Fatalf("export of %s differs from the file", id)
			}
		}
	})
	t.Run("ExportMarkdown", func(t *testing.T) {
		out, _, err := runMain(t, store, "export", "--format", "markdown", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "**Tool call:** `Agent`") || !strings.Contains(out, "## Round 001") {
			t.Fatalf("markdown:\n%s", out)
		}
	})
	t.Run("Show", func(t *testing.T) {
		out, _, err := runMain(t, store, "show", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03", "2")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, "## Round 002") || !strings.Contains(out, "**Tool call:** `Write`") {
			t.Fatalf("show:\n%s", out)
		}
	})
	t.Run("Search", func(t *testing.T) {
		out, _, err := runMain(t, store, "search", "migration", "plan")
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03  2 ") || !strings.Contains(out, "**migration**") {
			t.Fatalf("search:\n%s", out)
		}
		out, _, _ = runMain(t, store, "search", "--json", "authentication")
		var v struct{ Hits []struct{ SessionID string } }
		if err := json.Unmarshal([]byte(out), &v); err != nil || len(v.Hits) == 0 {
			t.Fatalf("search --json: %v %s", err, out)
		}
	})
	t.Run("Reindex", func(t *testing.T) {
		before, _, _ := runMain(t, store, "rounds", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01")
		if out, _, err := runMain(t, store, "reindex"); err != nil || out != "Reindexed 5 sessions.\n" {
			t.Fatalf("reindex: %q %v", out, err)
		}
		after, _, _ := runMain(t, store, "rounds", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01")
		if before != after {
			t.Fatalf("rounds changed by reindex:\n%s\n%s", before, after)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, c := range []struct {
			args []string
			want string
			code int
		}{
			{[]string{"nope"}, `unknown command "nope"`, 2},
			{[]string{"rounds", "5f0c"}, `Session prefix "5f0c" is ambiguous`, 1},
			{[]string{"rounds", "ffff"}, `No session matches "ffff".`, 1},
			{[]string{"show", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "99"}, "has no round 99", 1},
			{[]string{"export", "--format", "pdf", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"}, "--format must be jsonl or markdown", 2},
			{[]string{"search"}, "search needs a QUERY", 2},
			{[]string{"sessions", "--since", "yesterday"}, `cannot read "yesterday" as a time`, 2},
		} {
			_, _, err := runMain(t, store, c.args...)
			if err == nil || !strings.Contains(errorText(err), c.want) || exitCode(err) != c.code {
				t.Errorf("cairn %v: %v (exit %d), want %q exit %d", c.args, err, exitCode(err), c.want, c.code)
			}
		}
	})
}

func TestImportJSONAndProblems(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "0b0b0b0b-0000-4000-8000-000000000001.jsonl")
	os.WriteFile(file, []byte(`{"type":"user","sessionId":"0b0b0b0b-0000-4000-8000-000000000001","message":{"role":"user","content":"hi"},"uuid":"u1","timestamp":"2026-03-19T10:23:00Z"}`+"\n{broken\n"), 0o644)
	out, stderr, err := runMain(t, filepath.Join(dir, "cairn.db"), "import", file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, file+":2: invalid JSON (kept raw)") {
		t.Fatalf("problem not reported with file and line: %q", stderr)
	}
	if !strings.Contains(out, "kept raw without index: 1 invalid JSON") {
		t.Fatalf("summary: %s", out)
	}
	out, _, _ = runMain(t, filepath.Join(dir, "cairn.db"), "import", "--json", file)
	var rep struct {
		Files []struct{ Status string }
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Files[0].Status != "unchanged" {
		t.Fatalf("--json: %v %s", err, out)
	}
}

func TestHelp(t *testing.T) {
	out, _, err := runMain(t, "", "help")
	if err != nil || !strings.Contains(out, "cairn import") || !strings.Contains(out, "Transcripts:") {
		t.Fatalf("help: %v\n%s", err, out)
	}
	if strings.Contains(out, "More:") {
		t.Errorf("a command is in no group of commandGroups:\n%s", out)
	}
	for _, c := range commands {
		_, stderr, err := runMain(t, "", c.name, "-h")
		if exitCode(err) != 0 || !strings.Contains(stderr, "Usage: cairn "+c.name) {
			t.Errorf("%s -h: %v\n%s", c.name, err, stderr)
		}
	}
}

// TestReindexCodex repairs a store where a Codex rollout was inscribed as a
// Claude Code transcript (what cairn did before it read Codex): reindex
// rebuilds it as Codex's, with its rounds, and corrects its agent.
func TestReindexCodex(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	rollout := filepath.Join(t.TempDir(), "old.jsonl") // a name that does not say rollout
	data, err := os.ReadFile("../../testdata/codex/three-rounds.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	// Make the session_meta id the only identity, as an old cairn saw it.
	if err := os.WriteFile(rollout, data, 0o644); err != nil {
		t.Fatal(err)
	}
	st, err := openStoreWith(store, sqliteOpen{})
	if err != nil {
		t.Fatal(err)
	}
	im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: claudecode.Format{}}
	if fr, _ := im.ImportFile(context.Background(), rollout); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	st.Close()
	out, _, _ := runMain(t, store, "sessions", "--agent", "codex")
	if !strings.HasPrefix(out, "No sessions") {
		t.Fatalf("before reindex: %s", out)
	}
	if _, stderr, err := runMain(t, store, "reindex"); err != nil {
		t.Fatal(err, stderr)
	}
	out, _, _ = runMain(t, store, "sessions", "--agent", "codex", "--json")
	var got struct {
		Sessions []struct {
			Agent  string `json:"agent"`
			Rounds int    `json:"rounds"`
		} `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err, out)
	}
	if len(got.Sessions) != 1 || got.Sessions[0].Rounds != 3 {
		t.Fatalf("after reindex: %s", out)
	}
}
