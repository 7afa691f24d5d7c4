package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// run runs cairn with args against store and returns stdout, stderr.
func run(t *testing.T, store string, args ...string) (string, string, error) {
	t.Helper()
	var out, errb bytes.Buffer
	m := NewMain(strings.NewReader(""), &out, &errb)
	m.Getenv = func(k string) string {
		if k == "CAIRN_STORE" {
			return store
		}
		return ""
	}
	err := m.Run(context.Background(), args)
	return out.String(), errb.String(), err
}

func TestFrameCommands(t *testing.T) {
	store := filepath.Join(t.TempDir(), "c.db")
	for _, c := range []struct {
		args []string
		want string // in stdout
		err  string // in the error, "" for none
	}{
		{[]string{"mission", "set", "Ship the MVP", "--workspace", "/w"}, "MISSION: Ship the MVP", ""},
		{[]string{"phase", "next", "BUILD", "--task", "Build it", "--output", "docs/design.md"}, "PHASE: BUILD (1, start)", ""},
		{[]string{"push", "Build the app", "--root", "--id", "app", "--criteria", "it ships"}, "pushed app", ""},
		{[]string{"plan", "CRUD", "--id", "crud", "--criteria", "CRUD tasks"}, "planned crud", ""},
		{[]string{"plan", "Pagination", "--id", "page", "--criteria", "cursors", "--depends", "crud"}, "planned page", ""},
		{[]string{"ready"}, "crud  CRUD", ""},
		{[]string{"ready", "--claim", "--as", "bob"}, "claimed crud", ""},
		{[]string{"ready", "--claim", "--as", "eve"}, "", "No frame is ready"},
		{[]string{"pop", "crud", "--results", "CRUD done", "--artifact", "src/crud.go"}, "popped crud", ""},
		{[]string{"ready"}, "page  Pagination", ""},
		{[]string{"pop", "crud", "--results", "again"}, "", "cannot become completed"},
		{[]string{"push", "x"}, "", "needs success criteria"},
		{[]string{"invalidate", "page"}, "invalidated page", ""},
		{[]string{"tree", "--all"}, "[~] page", ""},
		{[]string{"context", "--frame", "app", "--chars", "1000", "--budget", "300"}, "<success-criteria>it ships</success-criteria>", ""},
		{[]string{"context", "--format", "yaml"}, "", "Unknown format"},
	} {
		out, _, err := run(t, store, c.args...)
		if c.err != "" {
			if err == nil || !strings.Contains(errorText(err), c.err) {
				t.Errorf("cairn %s: error %v, want %q", strings.Join(c.args, " "), err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("cairn %s: %v", strings.Join(c.args, " "), err)
		} else if !strings.Contains(out, c.want) {
			t.Errorf("cairn %s: output\n%s\nwant %q", strings.Join(c.args, " "), out, c.want)
		}
	}
}

func TestFrameCommandsHelp(t *testing.T) {
	for _, name := range []string{"push", "pop", "plan", "activate", "invalidate", "tree", "ready", "context", "mission", "phase"} {
		_, stderr, _ := run(t, "", name, "-h")
		if !strings.Contains(stderr, "Examples:") || !strings.Contains(stderr, "-store") {
			t.Errorf("cairn %s -h does not teach by example:\n%s", name, stderr)
		}
	}
}
