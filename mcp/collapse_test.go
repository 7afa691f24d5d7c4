package mcp_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/sqlite"
)

// TestPopCollapse: popping a frame whose rounds are in the acting session
// says what collapsing them frees and the command; a frame with no rounds
// says nothing of it.
func TestPopCollapse(t *testing.T) {
	s := MustServer(t)
	cs := MustConnect(t, s)
	const session = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	s.Workspace.Session = session
	if got, isErr := call(t, cs, "push", map[string]any{"title": "Auth", "criteria": "tokens checked"}); isErr {
		t.Fatal(got)
	}
	db := sqlite.NewDB(filepath.Join(s.Workspace.Root, ".cairn", "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := sqlite.NewTagStore(db).TagRounds(context.Background(), session, []int{1, 2}, "auth", "f1"); err != nil {
		t.Fatal(err)
	}
	got, isErr := call(t, cs, "pop", map[string]any{"results": "JWT auth"})
	if isErr || !strings.Contains(got, "Its 2 rounds in session 5f0c2a1e hold ~") || !strings.Contains(got, "cairn compress-frames "+session) {
		t.Fatalf("pop: %q", got)
	}
	call(t, cs, "push", map[string]any{"title": "Empty", "criteria": "x"})
	if got, _ := call(t, cs, "pop", map[string]any{"results": "nothing"}); strings.Contains(got, "compress-frames") {
		t.Fatalf("pop of a frame without rounds: %q", got)
	}
}
