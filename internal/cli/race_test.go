package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/sqlite"
)

// raceLine is line n of a growing transcript of session id.
func raceLine(id string, n int) string {
	typ, msg := "user", fmt.Sprintf(`{"role":"user","content":"question %d"}`, n)
	if n%2 == 0 {
		typ, msg = "assistant", fmt.Sprintf(`{"id":"msg_%d","role":"assistant","content":[{"type":"text","text":"answer %d"}]}`, n, n)
	}
	parent := "null"
	if n > 1 {
		parent = fmt.Sprintf(`"00000000-0000-4000-8000-%012d"`, n-1)
	}
	return fmt.Sprintf(`{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":"00000000-0000-4000-8000-%012d","timestamp":"2026-03-19T10:%02d:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n",
		parent, typ, msg, n, n%60, id)
}

// hookMain returns a Main running in workspace ws with home as $HOME, fed
// stdin.
func hookMain(ws, home, stdin string, stdout, stderr *bytes.Buffer) *Main {
	m := NewMain(strings.NewReader(stdin), stdout, stderr)
	m.Getenv = func(k string) string {
		if k == "HOME" {
			return home
		}
		return ""
	}
	m.Getwd = func() (string, error) { return ws, nil }
	return m
}

// TestHookRace: Stop and UserPromptSubmit hooks (the second reads the
// store), SessionEnd and manual imports of one transcript overlap, as
// they do in real use; every one
// succeeds, no SQL reaches stderr, every SessionEnd checkpoints, and the
// store holds the transcript.
func TestHookRace(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if err := hookMain(ws, home, "", &out, &errb).Run(context.Background(), []string{"init"}); err != nil {
		t.Fatal(err, errb.String())
	}
	id := "0d0d0d0d-0000-4000-8000-00000000ace5"
	dir := filepath.Join(home, ".claude", "projects", "-w")
	os.MkdirAll(dir, 0o755)
	transcript := filepath.Join(dir, id+".jsonl")
	f, err := os.Create(transcript)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	// Each round's end gives its own reason: an end the trace ends with
	// already, in the same minute, is not written twice.
	input := func(event string, round int) string {
		return fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q,"reason":"other-%d"}`, id, transcript, ws, event, round)
	}
	n := 0
	for round := range 10 {
		for range 4 {
			n++
			f.WriteString(raceLine(id, n))
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		var failures []string
		run := func(stdin string, args ...string) {
			defer wg.Done()
			var out, errb bytes.Buffer
			err := hookMain(ws, home, stdin, &out, &errb).Run(context.Background(), args)
			if err != nil || strings.Contains(errb.String(), "SQL") || strings.Contains(errb.String(), "constraint") {
				mu.Lock()
				failures = append(failures, fmt.Sprintf("%v: %v %s", args, err, errb.String()))
				mu.Unlock()
			}
		}
		wg.Add(5)
		go run(input("Stop", round), "hook", "Stop")
		go run(input("UserPromptSubmit", round), "hook", "UserPromptSubmit")
		go run(input("SessionEnd", round), "hook", "SessionEnd")
		go run("", "import", "-q", transcript)
		go run("", "import", "-q", dir)
		wg.Wait()
		for _, f := range failures {
			t.Errorf("round %d: %s", round, f)
		}
	}
	db := sqlite.NewDB(filepath.Join(ws, StoreDir, "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	lines, err := sqlite.NewLineStore(db).FindLines(context.Background(), id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	for _, l := range lines {
		got.Write(l.Raw)
	}
	want, _ := os.ReadFile(transcript)
	if got.String() != string(want) {
		t.Fatalf("the store holds %d lines, %d bytes; the transcript %d lines, %d bytes", len(lines), got.Len(), n, len(want))
	}
	var trace []byte
	filepath.WalkDir(filepath.Join(ws, ".cairn"), func(p string, d os.DirEntry, err error) error {
		if err == nil && filepath.Base(p) == id+".md" {
			trace, _ = os.ReadFile(p)
		}
		return nil
	})
	if c := strings.Count(string(trace), "session end"); c != 10 && !t.Failed() {
		t.Logf("trace:\n%s", trace)
		t.Errorf("%d session-end moves in the trace, want 10", c)
	}
}

// TestHookSessionStartUnderImport: the SessionStart hook answers at once
// while an import holds the store's write lock.
func TestHookSessionStartUnderImport(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if err := hookMain(ws, home, "", &out, &errb).Run(context.Background(), []string{"init"}); err != nil {
		t.Fatal(err, errb.String())
	}
	db := sqlite.NewDB(filepath.Join(ws, StoreDir, "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTx(context.Background(), nil) // the write lock, as an import holds it
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.Exec(`INSERT INTO migrations (name) VALUES ('held')`); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	done := make(chan error, 1)
	out.Reset()
	go func() {
		done <- hookMain(ws, home, `{"session_id":"s","hook_event_name":"SessionStart","cwd":"`+ws+`"}`, &out, &errb).
			Run(context.Background(), []string{"hook", "SessionStart"})
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err, errb.String())
		}
		if !strings.Contains(out.String(), "additionalContext") {
			t.Fatalf("stdout %q", out.String())
		}
		t.Logf("SessionStart under a held writer: %v", time.Since(start))
	case <-time.After(sqlite.DefaultBusyTimeout / 2): // well short of a wait for the writer, well past a loaded machine's delays
		t.Fatal("SessionStart waited for the writer")
	}
}

// TestHookTranscriptOutside: a hook reads only transcripts under the
// client's projects folder (or $CAIRN_TRANSCRIPT_DIRS): hook input naming
// another file, directly or through a symlink, stores nothing.
func TestHookTranscriptOutside(t *testing.T) {
	ws, home, elsewhere := t.TempDir(), t.TempDir(), t.TempDir()
	var out, errb bytes.Buffer
	if err := hookMain(ws, home, "", &out, &errb).Run(context.Background(), []string{"init"}); err != nil {
		t.Fatal(err, errb.String())
	}
	id := "0d0d0d0d-0000-4000-8000-0000000000e1"
	secret := filepath.Join(elsewhere, id+".jsonl")
	os.WriteFile(secret, []byte(raceLine(id, 1)), 0o644)
	projects := filepath.Join(home, ".claude", "projects", "-w")
	os.MkdirAll(projects, 0o755)
	link := filepath.Join(projects, "0d0d0d0d-0000-4000-8000-0000000000e2.jsonl")
	os.Symlink(secret, link)
	for _, path := range []string{secret, link} {
		errb.Reset()
		stdin := fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":"Stop"}`, id, path, ws)
		err := hookMain(ws, home, stdin, &out, &errb).Run(context.Background(), []string{"hook", "Stop"})
		if err == nil || exitCode(err) != 1 || !strings.Contains(errorText(err), "not under a transcript folder") {
			t.Fatalf("%s: %v", path, err)
		}
	}
	// Nothing was stored: the store holds no session, or was never made.
	stdout, _, err := runMain(t, filepath.Join(ws, StoreDir, "cairn.db"), "sessions")
	if err != nil && strings.Contains(errorText(err), "No store at") {
		return
	}
	if err != nil || !strings.Contains(stdout, "No sessions") {
		t.Fatalf("sessions after refused hooks: %q %v", stdout, err)
	}
}
