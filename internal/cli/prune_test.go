package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrune: stats counts what was imported; prune --older-than lists and
// drops only old sessions (with their sub-agent); a dropped session's file
// is skipped by the next import until it changes; the keep setting is
// applied by import, skips new files older than it, and is cleared by
// --keep forever.
func TestPrune(t *testing.T) {
	dir := t.TempDir()
	store := filepath.Join(dir, "cairn.db")
	now := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	cli := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		m := NewMain(strings.NewReader(""), &stdout, &stderr)
		m.Getenv = func(k string) string {
			switch k {
			case "CAIRN_STORE":
				return store
			case "CAIRN_NOW":
				return now.Format(time.RFC3339)
			}
			return ""
		}
		if err := m.Run(context.Background(), args); err != nil {
			t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
		}
		return stdout.String()
	}
	old := transcript(t, dir, "0ld00000-0000-4000-8000-000000000001", now.AddDate(0, -8, 0), "the old plan")
	fresh := transcript(t, dir, "f0e50000-0000-4000-8000-000000000002", now.AddDate(0, 0, -3), "the fresh plan")
	sub := filepath.Join(dir, "0ld00000-0000-4000-8000-000000000001", "subagents", "agent-a1.jsonl")
	if err := os.MkdirAll(filepath.Dir(sub), 0o755); err != nil {
		t.Fatal(err)
	}
	// A sub-agent of the old session, itself recent: it goes with its parent.
	subLine := fmt.Sprintf(`{"type":"user","sessionId":"0ld00000-0000-4000-8000-000000000001","agentId":"a1","isSidechain":true,"uuid":"s1","parentUuid":null,"timestamp":%q,"cwd":"/src/app","message":{"role":"user","content":"sub-agent task"}}`+"\n", now.AddDate(0, 0, -1).Format(time.RFC3339))
	if err := os.WriteFile(sub, []byte(subLine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(sub, now.AddDate(0, 0, -1), now.AddDate(0, 0, -1)); err != nil {
		t.Fatal(err)
	}
	cli("import", dir)

	var st struct {
		Sessions, Subagents int
		Rounds, Blocks      int64
		RawBytes            int64 `json:"raw_bytes"`
		Bytes               int64
		KeepDays            int `json:"keep_days"`
		Dropped             int
	}
	stats := func() {
		t.Helper()
		st.Sessions, st.Dropped = 0, 0
		if err := json.Unmarshal([]byte(cli("stats", "--json")), &st); err != nil {
			t.Fatal(err)
		}
	}
	stats()
	if st.Sessions != 3 || st.Subagents != 1 || st.Rounds < 2 || st.RawBytes <= 0 || st.Bytes <= 0 {
		t.Fatalf("stats after import: %+v", st)
	}
	if out := cli("stats", "--parts"); !strings.Contains(out, "Holds   3 sessions (1 sub-agent; claude-code 3)") || !strings.Contains(out, "raw lines") {
		t.Errorf("stats text:\n%s", out)
	}

	out := cli("prune", "--older-than", "90d", "--dry-run")
	if !strings.Contains(out, "Would drop 2 sessions last active before 2026-08-27.") || strings.Contains(out, "f0e5") {
		t.Errorf("dry run:\n%s", out)
	}
	if stats(); st.Sessions != 3 {
		t.Fatalf("a dry run dropped sessions: %+v", st)
	}
	out = cli("prune", "--older-than", "90")
	if !strings.Contains(out, "Dropped 2 sessions") {
		t.Errorf("prune:\n%s", out)
	}
	if stats(); st.Sessions != 1 || st.Dropped != 2 || st.KeepDays != 0 {
		t.Fatalf("stats after prune: %+v", st)
	}
	if out := cli("search", "old plan"); strings.Contains(out, "0ld0") {
		t.Errorf("search finds a dropped session:\n%s", out)
	}

	// Unchanged files of dropped sessions are not read again.
	if out := cli("import", dir); !strings.Contains(out, "2 files the store lets go") {
		t.Errorf("import after prune:\n%s", out)
	}
	if stats(); st.Sessions != 1 {
		t.Fatalf("import brought dropped sessions back: %+v", st)
	}
	// The session goes on: its file is read again, whole.
	appendLine(t, old, now.Add(time.Hour), "the old plan continues")
	cli("import", old)
	if stats(); st.Sessions != 2 || st.Dropped != 1 {
		t.Fatalf("a dropped session that went on: %+v", st)
	}

	// The keep setting: applied now, by import, and to new old files.
	if out := cli("prune", "--keep", "30d"); !strings.Contains(out, "keeps sessions active in the last 30 days") {
		t.Errorf("prune --keep:\n%s", out)
	}
	ancient := transcript(t, dir, "a0c1e000-0000-4000-8000-000000000003", now.AddDate(-1, 0, 0), "an ancient plan")
	if out := cli("import", ancient); !strings.Contains(out, "1 file the store lets go") {
		t.Errorf("import of a file older than the keep setting:\n%s", out)
	}
	if stats(); st.Sessions != 2 || st.KeepDays != 30 {
		t.Fatalf("stats with a keep setting: %+v", st)
	}
	now = now.AddDate(0, 0, 10) // the fresh session is now 13 days old, the resumed one 10
	cli("import", fresh)
	if stats(); st.Sessions != 2 {
		t.Fatalf("keep 30 days dropped a session 13 days old: %+v", st)
	}
	now = now.AddDate(0, 0, 25)
	if out := cli("import", fresh); !strings.Contains(out, "Dropped 2 sessions last active before") {
		t.Errorf("import applying the keep setting:\n%s", out)
	}
	if out := cli("prune", "--keep", "forever"); !strings.Contains(out, "keeps every session") {
		t.Errorf("prune --keep forever:\n%s", out)
	}
	if stats(); st.KeepDays != 0 || st.Sessions != 0 {
		t.Fatalf("after --keep forever: %+v", st)
	}
}

// transcript writes a Claude Code session of one round at at, changed
// last at at, and returns its path.
func transcript(t *testing.T, dir, id string, at time.Time, words string) string {
	t.Helper()
	path := filepath.Join(dir, id+".jsonl")
	appendLine(t, path, at, words)
	return path
}

// appendLine adds a prompt and a reply to the transcript at path and
// sets its modification time to at.
func appendLine(t *testing.T, path string, at time.Time, words string) {
	t.Helper()
	id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	ts := at.Format(time.RFC3339)
	fmt.Fprintf(f, `{"type":"user","sessionId":%q,"uuid":"u-%d","parentUuid":null,"timestamp":%q,"cwd":"/src/app","message":{"role":"user","content":%q}}`+"\n", id, at.Unix(), ts, words)
	fmt.Fprintf(f, `{"type":"assistant","sessionId":%q,"uuid":"a-%d","parentUuid":"u-%d","timestamp":%q,"cwd":"/src/app","message":{"id":"m-%d","role":"assistant","content":[{"type":"text","text":"Noted: %s."}]}}`+"\n", id, at.Unix(), at.Unix(), ts, at.Unix(), words)
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(path, at, at); err != nil {
		t.Fatal(err)
	}
}
