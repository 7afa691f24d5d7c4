package codextest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/codextest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
)

// subagentDir holds the parent and sub-agent rollouts the real client
// wrote (TestSubagent -update).
const subagentDir = samplesDir + "/subagent"

// TestSubagent has the real client spawn a sub-agent (multi_agent_v1's
// spawn_agent, [features] multi_agent) and reads where the link between
// the two threads lies: not only in the state database's
// thread_spawn_edges, but in both rollouts, the sub-agent's session_meta
// naming its parent (source.subagent.thread_spawn.parent_thread_id) and the
// parent's spawn_agent output naming the sub-agent (agent_id). Imported,
// the sub-agent is its parent's child, and the call's result names it, so
// the viewer opens it in place.
func TestSubagent(t *testing.T) {
	bin := codextest.Binary(t)
	api := fakeapi.NewResponses(
		fakeapi.ResponsesTurn{Match: "delegate the count", Steps: [][]fakeapi.Item{
			{{Type: "function_call", Namespace: "multi_agent_v1", Name: "spawn_agent", Arguments: map[string]any{"message": "count the lines of notes.txt"}}},
			{{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "sleep 3"}}},
			{{Type: "message", Text: "The helper is counting them."}},
		}},
		fakeapi.ResponsesTurn{Match: "count the lines of notes.txt", Steps: [][]fakeapi.Item{
			{{Type: "function_call", Name: "exec_command", Arguments: map[string]any{"cmd": "printf 'a\\nb\\n' | wc -l"}}},
			{{Type: "message", Text: "notes.txt has 2 lines."}},
		}},
	)
	defer api.Close()
	h := codextest.NewHome(t, api.URL)
	cfg := filepath.Join(h.CodexHome, "config.toml")
	data, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, append(data, "\n[features]\nmulti_agent = true\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	parent := h.Exec(t, bin, "delegate the count")
	rollouts, _ := filepath.Glob(filepath.Join(h.CodexHome, "sessions", "*", "*", "*", "rollout-*.jsonl"))
	if len(rollouts) != 2 {
		t.Fatalf("rollouts: %v", rollouts)
	}
	db := mustOpenStore(t)
	for _, p := range rollouts {
		importInto(t, db, p, "new")
	}
	ctx := context.Background()
	all, _, err := sqlite.NewSessionStore(db).FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	var child *cairn.Session
	for _, s := range all {
		if s.ID != parent {
			child = s
		}
	}
	if err != nil || len(all) != 2 || child == nil || child.Parent != parent {
		t.Fatalf("the sessions: %v %v, want %s and its child", all, err, parent)
	}
	t.Logf("parent %s, sub-agent %s (%s)", parent, child.ID, child.Lineage)
	if child.Lineage != cairn.LineageSubagent || child.AgentID != child.ID {
		t.Fatalf("the sub-agent: lineage %s, agent id %q", child.Lineage, child.AgentID)
	}
	rs, err := sqlite.NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{SessionID: parent, WithBlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	named := ""
	for _, r := range rs {
		for _, b := range r.Blocks {
			if b.Kind == cairn.ToolResult && b.ToolName == "spawn_agent" {
				named = b.AgentID
			}
		}
	}
	if named != child.ID {
		t.Fatalf("the spawn_agent result names %q, want the sub-agent %s", named, child.ID)
	}
	if *update {
		if err := os.MkdirAll(subagentDir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, p := range rollouts {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(subagentDir, filepath.Base(p)), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
