package retention

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestProbes_EveryHarness: the artifact probes of a Codex and a pi
// session ask for the files their own write tools changed: each file a
// patch adds or updates, one it deletes as a deletion, pi's path.
func TestProbes_EveryHarness(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: api/health.go\n+package api\n*** Update File: api/server.go\n@@\n-a\n+b\n*** Delete File: api/old.go\n*** End Patch\n"
	for _, c := range []struct {
		agent, tool, input string
		want               []string
	}{
		{cairn.AgentCodex, "apply_patch", patch, []string{
			"Which file did 1.1 change with apply_patch? api/health.go",
			"Which file did 1.1 change with apply_patch? api/server.go",
			"Which file did 1.1 delete or move away? api/old.go",
		}},
		{cairn.AgentPi, "edit", `{"path":"/w/list.txt","edits":[{"oldText":"two","newText":"three"}]}`, []string{
			"Which file did 1.1 change with edit? list.txt",
		}},
	} {
		s := &cairn.Session{ID: "s", Agent: c.agent, Project: "/w"}
		r := &cairn.Round{SessionID: "s", Seq: 1, LastLine: 3, Blocks: []*cairn.Block{
			{SessionID: "s", RoundSeq: 1, LineNo: 1, Role: "user", Kind: cairn.UserText, Content: "make the change"},
			{SessionID: "s", RoundSeq: 1, LineNo: 2, Role: "assistant", Kind: cairn.ToolUse, MessageID: "m1", ToolName: c.tool, ToolID: "t1", Content: c.input},
			{SessionID: "s", RoundSeq: 1, LineNo: 3, Role: "user", Kind: cairn.ToolResult, ToolName: c.tool, ToolID: "t1", Content: "done"},
		}}
		var got []string
		for _, p := range Probes(s, []*cairn.Round{r}) {
			if p.Category == Artifact {
				got = append(got, p.Question+" "+p.Answer)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s: artifact probes %q, want %q", c.agent, got, c.want)
		}
	}
}
