package opencode_test

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/opencode"
)

// copyDB copies a sample's opencode.db into a scratch data folder.
func copyDB(t *testing.T, rel string) string {
	t.Helper()
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join("testdata", rel, opencode.DBName))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, opencode.DBName), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func exec(t *testing.T, dir, q string, args ...any) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+filepath.Join(dir, opencode.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		t.Fatal(err)
	}
}

// TestMirrorGrows checks that a log only grows: a reply still being
// written waits (its prompt too), a finished one is appended, a document
// changed after it was written is appended again, nothing changed appends
// nothing, and a reply left unfinished past opencode.Quiet is written.
func TestMirrorGrows(t *testing.T) {
	ctx := context.Background()
	dir := copyDB(t, "1.18.33")
	logs := t.TempDir()
	now := time.UnixMilli(9e12 + 60_000)
	mirror := func() {
		t.Helper()
		if _, err := opencode.MirrorAt(ctx, dir, logs, now); err != nil {
			t.Fatal(err)
		}
	}
	// The sample's session was updated long before 9e12 ms: it is quiet.
	exec(t, dir, `UPDATE session SET time_updated = 9e12`)
	paths, err := opencode.MirrorAt(ctx, dir, logs, now)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(paths[0])
	id := filepath.Base(paths[0])
	id = id[:len(id)-len(".jsonl")]

	// Nothing changed: nothing appended.
	mirror()
	if again, _ := os.ReadFile(paths[0]); !bytes.Equal(again, first) {
		t.Fatalf("a second mirror of an unchanged store changed the log")
	}

	// A new prompt and a reply still streaming: neither is written.
	exec(t, dir, `INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		"msg_ffffffffff01aaaaaaaaaaaaaa", id, 9e12, 9e12, `{"role":"user","time":{"created":9000000000000}}`)
	exec(t, dir, `INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)`,
		"prt_ffffffffff01aaaaaaaaaaaaaa", "msg_ffffffffff01aaaaaaaaaaaaaa", id, 9e12, 9e12, `{"type":"text","text":"THIRD-PROMPT"}`)
	exec(t, dir, `INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		"msg_ffffffffff02aaaaaaaaaaaaaa", id, 9e12+1, 9e12+1, `{"role":"assistant","parentID":"msg_ffffffffff01aaaaaaaaaaaaaa","time":{"created":9000000000001}}`)
	mirror()
	if mid, _ := os.ReadFile(paths[0]); !bytes.Equal(mid, first) {
		t.Fatalf("an unfinished reply was written:\n%s", mid[len(first):])
	}

	// The reply finishes and the title changes: the prompt, the reply and
	// the session's new version are appended after what was there.
	exec(t, dir, `UPDATE message SET data = ?, time_updated = 9e12 + 2 WHERE id = ?`,
		`{"role":"assistant","parentID":"msg_ffffffffff01aaaaaaaaaaaaaa","time":{"created":9000000000001,"completed":9000000000002},"finish":"stop"}`,
		"msg_ffffffffff02aaaaaaaaaaaaaa")
	exec(t, dir, `UPDATE session SET title = 'RETITLED', time_updated = 9e12 + 3 WHERE id = ?`, id)
	mirror()
	last, _ := os.ReadFile(paths[0])
	if !bytes.HasPrefix(last, first) {
		t.Fatalf("the log was rewritten, not appended to")
	}
	added := bytes.Split(bytes.TrimSuffix(last[len(first):], []byte("\n")), []byte("\n"))
	want := []string{"msg_ffffffffff01", "prt_ffffffffff01", "msg_ffffffffff02", "RETITLED"}
	if len(added) != len(want) {
		t.Fatalf("appended %d lines, want %d:\n%s", len(added), len(want), last[len(first):])
	}
	for i, w := range want {
		if !bytes.Contains(added[i], []byte(w)) {
			t.Errorf("appended line %d lacks %s: %s", i+1, w, added[i])
		}
	}

	// A prompt whose reply never finishes is written once the session has
	// been quiet for opencode.Quiet.
	exec(t, dir, `INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)`,
		"msg_ffffffffff03aaaaaaaaaaaaaa", id, 9e12+4, 9e12+4, `{"role":"user","time":{"created":9000000000004}}`)
	exec(t, dir, `UPDATE session SET time_updated = 9e12 + 4 WHERE id = ?`, id)
	mirror()
	if b, _ := os.ReadFile(paths[0]); bytes.Contains(b[len(last):], []byte("msg_ffffffffff03")) {
		t.Fatalf("an unanswered prompt was written before the session was quiet:\n%s", b[len(last):])
	}
	now = now.Add(opencode.Quiet)
	mirror()
	if b, _ := os.ReadFile(paths[0]); !strings.Contains(string(b[len(last):]), "msg_ffffffffff03") {
		t.Fatalf("an unanswered prompt of a quiet session was not written:\n%s", b[len(last):])
	}
}

// TestMirrorReadOnly checks that reading the store writes nothing into it.
func TestMirrorReadOnly(t *testing.T) {
	dir := copyDB(t, "1.18.33")
	before, _ := os.ReadFile(filepath.Join(dir, opencode.DBName))
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o755)
	if _, err := opencode.Mirror(context.Background(), dir, t.TempDir()); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, opencode.DBName))
	if !bytes.Equal(before, after) {
		t.Error("reading opencode's store changed it")
	}
}
