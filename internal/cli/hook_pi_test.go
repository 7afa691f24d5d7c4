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

	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/pi"
)

// piTurns is a format-3 pi session of n prompts, each answered, every text
// padded to about 2 KiB with word, chained by parentId from after.
func piTurns(from, n int, after, word string) (lines, last string) {
	var b strings.Builder
	parent := after
	for i := from; i < from+n; i++ {
		for _, role := range []string{"user", "assistant"} {
			id := fmt.Sprintf("%08x", i*2+len(role)%2)
			msg := map[string]any{"role": role, "content": []map[string]any{{"type": "text", "text": fmt.Sprintf("%s %d %s", role, i, strings.Repeat(word+" ", 300))}}, "timestamp": 1795858423716 + i}
			if role == "assistant" {
				msg["stopReason"], msg["usage"] = "stop", map[string]int{"input": 100, "output": 20, "totalTokens": 120}
			}
			line, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": "2026-11-28T09:33:44.000Z", "message": msg})
			b.Write(append(line, '\n'))
			parent = id
		}
	}
	return b.String(), parent
}

// piHome is a scratch HOME (root) with a working folder (cwd) and pi's
// sessions folder for it (dir).
func piHome(t *testing.T) (root, cwd, dir string) {
	t.Helper()
	root = t.TempDir()
	cwd = filepath.Join(root, "work")
	dir = pi.ProjectDir(filepath.Join(root, ".pi", "agent", "sessions"), cwd)
	for _, d := range []string{dir, cwd} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return root, cwd, dir
}

// TestPiCompactLive: "cairn hook --agent pi compact" inscribes the session
// as a live import (issue 45, 2): after an edit in the middle of a 1 MiB
// session, outside the windows an import hashes, and a prompt appended,
// the hook reads only the new lines (its compaction holds the new prompt);
// the import after it, which reads every byte, finds the edit and stores
// the file as a new generation. An import that read every byte in the hook
// would have found the edit there, and the next import nothing.
func TestPiCompactLive(t *testing.T) {
	root, cwd, dir := piHome(t)
	const id = "01a22180-defd-73bc-8443-00000000beef"
	file := filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+id+".jsonl")
	head := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-11-28T09:33:43.559Z","cwd":"` + cwd + `"}` + "\n"
	turns, last := piTurns(1, 250, "", "steady")
	content := head + turns
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": root, "CAIRN_STORE": filepath.Join(root, "cairn.db")}
	compact := func(last string) piCompactionReply {
		t.Helper()
		in, _ := json.Marshal(piCompaction{SessionFile: file, Cwd: cwd, Window: 200000, ReserveTokens: 16384, FirstKeptEntryID: last,
			Leaf: loop.PiLeaf{ID: last, Type: "message", Role: "assistant", StopReason: "stop"}})
		var stdout, stderr bytes.Buffer
		m := NewMain(bytes.NewReader(in), &stdout, &stderr)
		m.Getenv = func(k string) string { return env[k] }
		if err := m.Run(context.Background(), []string{"hook", "--agent", "pi", "compact"}); err != nil {
			t.Fatalf("hook: %v\n%s", err, stderr.String())
		}
		var r piCompactionReply
		if err := json.Unmarshal(stdout.Bytes(), &r); err != nil || r.Session != id || r.FirstKeptEntryID != last {
			t.Fatalf("reply %v: %+v", err, r)
		}
		return r
	}
	compact(last)

	mid := len(content)/2 + strings.Index(content[len(content)/2:], "steady")
	more, last := piTurns(251, 1, last, "appended")
	edited := content[:mid] + "STEADY" + content[mid+len("steady"):] + more
	if err := os.WriteFile(file, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	if r := compact(last); !strings.Contains(r.Summary, "user 251 appended") {
		t.Errorf("the compaction lacks the appended prompt:\n%.2000s", r.Summary)
	}
	out, errOut, err := runEnv(t, env, "import", file)
	if err != nil || !strings.Contains(out, "1 rewritten") {
		t.Fatalf("import after the live ones: %v\n%s%s", err, out, errOut)
	}
}

// TestPiStartInscribes: "cairn hook --agent pi start" of a session pi
// loads from its file inscribes it (a live import), in a workspace or
// not, so the compaction later reads only what was appended since; the
// start of a session pi has not written yet inscribes nothing and fails
// nothing, nor does the start of one that holds cairn's context (its end
// inscribed it) or that pi has just compacted (the compaction did).
func TestPiStartInscribes(t *testing.T) {
	root, cwd, dir := piHome(t)
	const id = "01a22180-defd-73bc-8443-00000000cafe"
	file := filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+id+".jsonl")
	env := map[string]string{"HOME": root, "CAIRN_STORE": filepath.Join(root, "cairn.db")}
	start := func(reason string, resumed bool) {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"session_id": id, "session_file": file, "cwd": cwd, "reason": reason, "resumed": resumed})
		var stdout, stderr bytes.Buffer
		m := NewMain(bytes.NewReader(in), &stdout, &stderr)
		m.Getenv = func(k string) string { return env[k] }
		if err := m.Run(context.Background(), []string{"hook", "--agent", "pi", "start"}); err != nil || stderr.Len() > 0 {
			t.Fatalf("hook: %v\n%s", err, stderr.String())
		}
	}
	start("startup", false)
	if out, _, _ := runEnv(t, env, "sessions"); strings.Contains(out, id[:8]) {
		t.Fatalf("a session not written yet is listed:\n%s", out)
	}
	turns, _ := piTurns(1, 3, "", "started")
	head := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-11-28T09:33:43.559Z","cwd":"` + cwd + `"}` + "\n"
	if err := os.WriteFile(file, []byte(head+turns), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		reason  string
		resumed bool
	}{{"startup", true}, {"compact", false}} {
		start(c.reason, c.resumed)
		if out, _, _ := runEnv(t, env, "sessions"); strings.Contains(out, id[:8]) {
			t.Fatalf("start (%s, resumed %v) inscribed the session:\n%s", c.reason, c.resumed, out)
		}
	}
	start("resume", false)
	out, errOut, err := runEnv(t, env, "rounds", id)
	if err != nil || !strings.Contains(out, "3 rounds") || !strings.Contains(out, "assistant 3 started") {
		t.Errorf("rounds after the start: %v\n%s%s", err, out, errOut)
	}
}

// TestPiPrepare: "cairn hook --agent pi prepare", the compaction the
// extension prepares ahead of pi's, is of the session as it was when the
// entry it names (upto) was its last: the turns after it are left to the
// entries pi keeps, not in the summary; an entry the file does not hold
// is an error (the extension then compacts as pi asks).
func TestPiPrepare(t *testing.T) {
	root, cwd, dir := piHome(t)
	const id = "01a22180-defd-73bc-8443-00000000feed"
	file := filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+id+".jsonl")
	turns, _ := piTurns(1, 5, "", "steady")
	head := `{"type":"session","version":3,"id":"` + id + `","timestamp":"2026-11-28T09:33:43.559Z","cwd":"` + cwd + `"}` + "\n"
	if err := os.WriteFile(file, []byte(head+turns), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": root, "CAIRN_STORE": filepath.Join(root, "cairn.db")}
	prepare := func(upto string) (piCompactionReply, error) {
		in, _ := json.Marshal(piCompaction{SessionFile: file, Cwd: cwd, Window: 200000, Upto: upto})
		var stdout, stderr bytes.Buffer
		m := NewMain(bytes.NewReader(in), &stdout, &stderr)
		m.Getenv = func(k string) string { return env[k] }
		if err := m.Run(context.Background(), []string{"hook", "--agent", "pi", "prepare"}); err != nil {
			return piCompactionReply{}, err
		}
		var r piCompactionReply
		return r, json.Unmarshal(stdout.Bytes(), &r)
	}
	r, err := prepare("00000007") // turn 3's reply
	if err != nil {
		t.Fatal(err)
	}
	if r.Upto != "00000007" || r.FirstKeptEntryID != "" || r.Session != id || r.Tokens <= 0 {
		t.Errorf("reply: upto %q, first kept %q, session %q, tokens %d", r.Upto, r.FirstKeptEntryID, r.Session, r.Tokens)
	}
	for _, want := range []string{"user 1 steady", "assistant 3 steady"} {
		if !strings.Contains(r.Summary, want) {
			t.Errorf("the prepared compaction lacks %q", want)
		}
	}
	for _, after := range []string{"user 4 ", "assistant 5 "} {
		if strings.Contains(r.Summary, after) {
			t.Errorf("the prepared compaction holds %q, after the entry it is prepared up to", after)
		}
	}
	if _, err := prepare("0000ffff"); err == nil {
		t.Error("prepared up to an entry the file does not hold")
	}
}
