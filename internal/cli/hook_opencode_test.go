package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/opencode"
)

// TestOpencodeHook: "cairn hook --agent opencode EVENT" over a copy of the
// store the real opencode 1.18.33 wrote: outside a workspace it prints and
// stores nothing; in one, start prints the loop's start context, idle
// inscribes the session (mirrored beside the store, then imported), compact
// inscribes and prints the line for the compaction's prompt naming the
// session; an unknown event is refused with the events' list.
func TestOpencodeHook(t *testing.T) {
	root := t.TempDir()
	project, data := filepath.Join(root, "work"), opencodeData(t, root)
	if err := os.MkdirAll(project, 0o755); err != nil {
		t.Fatal(err)
	}
	logs, err := opencode.ReadStore(context.Background(), data)
	if err != nil || len(logs) == 0 {
		t.Fatalf("read store: %v", err)
	}
	id := logs[0].ID
	env := map[string]string{"HOME": root, "XDG_DATA_HOME": filepath.Join(root, "data")}
	run := func(stdin string, args ...string) (string, error) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		m := NewMain(strings.NewReader(stdin), &stdout, &stderr)
		m.Getenv = func(k string) string { return env[k] }
		m.Getwd = func() (string, error) { return project, nil }
		err := m.Run(context.Background(), args)
		return stdout.String(), err
	}
	hook := func(event string) opencodeReply {
		t.Helper()
		in, _ := json.Marshal(map[string]any{"session_id": id, "cwd": project, "data": data})
		out, err := run(string(in), "hook", "--agent", "opencode", event)
		if err != nil {
			t.Fatalf("hook %s: %v", event, err)
		}
		var r opencodeReply
		if out != "" {
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("hook %s: %v\n%s", event, err, out)
			}
		}
		return r
	}
	if r := hook("idle"); r != (opencodeReply{}) {
		t.Errorf("outside a workspace: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(project, ".cairn")); !os.IsNotExist(err) {
		t.Fatalf("outside a workspace something was written: %v", err)
	}
	if _, err := run("", "init"); err != nil {
		t.Fatal(err)
	}
	if r := hook("start"); !strings.Contains(r.Agent, `<relay name="cairn prime">`) {
		t.Errorf("start: %+v", r)
	}
	hook("idle")
	if out, err := run("", "sessions", "--agent", "opencode"); err != nil || !strings.Contains(out, id) {
		t.Errorf("the session is not stored after idle: %v\n%s", err, out)
	}
	if r := hook("compact"); !strings.Contains(r.Agent, "cairn inject "+id+" ROUND") {
		t.Errorf("compact: %+v", r)
	}
	if _, err := run("{}", "hook", "--agent", "opencode", "stop"); err == nil || !strings.Contains(err.Error(), "start, prompt, idle, compact, end") {
		t.Errorf("an unknown event: %v", err)
	}
}

// opencodeData makes opencode's data folder under root (XDG_DATA_HOME
// root/data) holding a copy of the store the real opencode 1.18.33 wrote,
// and returns it.
func opencodeData(t *testing.T, root string) string {
	t.Helper()
	data := filepath.Join(root, "data", "opencode")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile("../../opencode/testdata/1.18.33/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, opencode.DBName), db, 0o644); err != nil {
		t.Fatal(err)
	}
	return data
}
