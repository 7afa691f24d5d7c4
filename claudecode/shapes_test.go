package claudecode_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// shapeParse is what a test reads of one transcript's parse: its rounds
// with their blocks and steps.
type shapeParse struct {
	session *cairn.Session
	rounds  []*cairn.Round
	blocks  map[int][]*cairn.Block
	steps   map[int][]*cairn.Step
}

func parseShape(t *testing.T, pattern string) shapeParse {
	t.Helper()
	paths, err := filepath.Glob(pattern)
	if err != nil || len(paths) != 1 {
		t.Fatalf("%s: want one transcript, have %v (%v)", pattern, paths, err)
	}
	data, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	s, _, rounds, blocks, _ := build(t, paths[0], data)
	p := shapeParse{session: s, rounds: rounds, blocks: map[int][]*cairn.Block{}, steps: map[int][]*cairn.Step{}}
	for _, b := range blocks {
		p.blocks[b.RoundSeq] = append(p.blocks[b.RoundSeq], b)
	}
	for _, r := range rounds {
		p.steps[r.Seq] = cairn.Steps(p.blocks[r.Seq], r.LastLine)
	}
	return p
}

// prompts returns the rounds' previews, in order.
func (p shapeParse) prompts() []string {
	var out []string
	for _, r := range p.rounds {
		out = append(out, r.UserPreview)
	}
	return out
}

// kinds counts a round's blocks of kind k, sidechain ones apart.
func (p shapeParse) kinds(seq int, k cairn.BlockKind) (main, side int) {
	for _, b := range p.blocks[seq] {
		if b.Kind == k && b.Sidechain {
			side++
		} else if b.Kind == k {
			main++
		}
	}
	return main, side
}

const oldShapes = "../testdata/shapes/claude-1.0/"

// TestShapes_Claude10 reads each shape the real client 1.0.51 writes
// (../testdata/shapes/claude-1.0, its README says how each was made) into
// the rounds, steps and compactions a person sees in them.
func TestShapes_Claude10(t *testing.T) {
	t.Run("compact", func(t *testing.T) {
		// Two prompts, /compact, a third: the compaction is the summary
		// line (no boundary), inside round 2 after its answer, manual.
		p := parseShape(t, oldShapes+"compact/*.jsonl")
		if got := strings.Join(p.prompts(), " | "); got != "Take stock of the inventory in this folder | Add a fourth part to the inventory | After the compaction, check the count of parts" {
			t.Errorf("rounds %q", got)
		}
		var comps []*cairn.Block
		for _, r := range p.rounds {
			for _, b := range p.blocks[r.Seq] {
				if b.Kind == cairn.CompactionBlock {
					comps = append(comps, b)
				}
			}
		}
		if len(comps) != 1 || comps[0].RoundSeq != 2 || comps[0].Content != "Conversation compacted (manual, 120 tokens)" {
			t.Fatalf("compaction blocks %+v, want one in round 2, manual, of the last reply's 120 tokens", comps)
		}
		if n := []int{len(p.steps[1]), len(p.steps[2]), len(p.steps[3])}; n[0] != 4 || n[1] != 2 || n[2] != 2 {
			t.Errorf("steps per round %v, want [4 2 2] (three calls and the answer; a call and the answer; a call and the answer)", n)
		}
	})
	t.Run("auto", func(t *testing.T) {
		// One round; the client compacts by itself after the fourth call:
		// a reply follows the summary, no /compact, and the size is the
		// one the reply before reported.
		p := parseShape(t, oldShapes+"auto/*.jsonl")
		if len(p.rounds) != 1 || p.rounds[0].UserPreview != "Work through the numbered parts one by one" {
			t.Fatalf("rounds %q", p.prompts())
		}
		var comp *cairn.Block
		for _, b := range p.blocks[1] {
			if b.Kind == cairn.CompactionBlock {
				comp = b
			}
		}
		if comp == nil || comp.Content != "Conversation compacted (auto, 190020 tokens)" {
			t.Fatalf("compaction %+v, want an automatic one of 190,020 tokens (the reply that filled the context)", comp)
		}
		calls, _ := p.kinds(1, cairn.ToolUse)
		if calls != 6 || len(p.steps[1]) != 7 {
			t.Errorf("%d calls in %d steps, want 6 calls and the answer in 7 steps", calls, len(p.steps[1]))
		}
	})
	t.Run("sidechain", func(t *testing.T) {
		// A Task sub-agent written inline: its prompt starts no round, its
		// lines are sidechain blocks of the round that called it.
		p := parseShape(t, oldShapes+"sidechain/*.jsonl")
		if len(p.rounds) != 1 || p.rounds[0].UserPreview != "Audit the parts with a subagent" {
			t.Fatalf("rounds %q", p.prompts())
		}
		calls, subCalls := p.kinds(1, cairn.ToolUse)
		results, subResults := p.kinds(1, cairn.ToolResult)
		if calls != 1 || subCalls != 1 || results != 1 || subResults != 1 {
			t.Errorf("calls %d+%d (sub-agent), results %d+%d, want 1+1 and 1+1", calls, subCalls, results, subResults)
		}
		if p.rounds[0].AgentPreview != "The subagent counted four parts." {
			t.Errorf("the round's answer is %q, not the main chain's", p.rounds[0].AgentPreview)
		}
	})
	t.Run("resumed", func(t *testing.T) {
		// 1.0.51 resumes into a new file: the old session's main chain
		// written again under the new id (its sidechain left out), after
		// summary lines naming the old leaves; then the new prompt.
		p := parseShape(t, oldShapes+"resumed/*.jsonl")
		if got := strings.Join(p.prompts(), " | "); got != " | Audit the parts with a subagent | Thanks. Which part was added last?" {
			t.Errorf("rounds %q, want round 0 (the summary lines), the old prompt, the new one", got)
		}
		if _, side := p.kinds(1, cairn.ToolUse); side != 0 {
			t.Errorf("%d sidechain calls in the resumed copy", side)
		}
	})
}

// TestShapes_Subagents reads the shape of today's sub-agents (the real
// client 2.1.330, ../testdata/claudecode/…1f02): the sub-agent's own file
// under <session>/subagents/ is a session of its own, named by its parent
// and agent id, whose round is the prompt the parent's Agent call gave it;
// the parent's round holds the call and its result, which names the agent.
func TestShapes_Subagents(t *testing.T) {
	const parent = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"
	p := parseShape(t, "../testdata/claudecode/"+parent+".jsonl")
	if got := p.prompts(); len(got) != 2 || got[0] != "" || !strings.HasPrefix(got[1], "Use a subagent to audit") {
		t.Fatalf("parent: rounds %q, want round 0 (the lines before the prompt) and the prompt", got)
	}
	var call, result *cairn.Block
	for _, b := range p.blocks[1] {
		switch {
		case b.Kind == cairn.ToolUse && b.ToolName == "Agent":
			call = b
		case b.Kind == cairn.ToolResult && b.ToolName == "Agent":
			result = b
		}
	}
	if call == nil || result == nil || result.ToolID != call.ToolID || result.AgentID == "" {
		t.Fatalf("parent: Agent call %+v, result %+v: want a call and its result naming the agent", call, result)
	}
	sub := parseShape(t, "../testdata/claudecode/"+parent+"/subagents/agent-"+result.AgentID+".jsonl")
	s := sub.session
	if s.Lineage != cairn.LineageSubagent || s.Parent != parent || s.ID != parent+"-agent-"+result.AgentID {
		t.Errorf("sub-agent session %s (%s, parent %s)", s.ID, s.Lineage, s.Parent)
	}
	if want := claudecode.Preview(cairn.ToolInputString(call.Content, "prompt")); len(sub.rounds) != 1 || sub.rounds[0].UserPreview != want {
		t.Errorf("sub-agent: rounds %q, want one, of the prompt the Agent call gave: %q", sub.prompts(), want)
	}
	calls, _ := sub.kinds(1, cairn.ToolUse)
	results, _ := sub.kinds(1, cairn.ToolResult)
	if calls < 2 || results != calls || len(sub.steps[1]) < 2 {
		t.Errorf("sub-agent: %d calls, %d results in %d steps", calls, results, len(sub.steps[1]))
	}
}

// TestShapes_InlineSidechainPublic reads the public 1.0.108 transcript
// with an inline sidechain: the sidechain's prompt starts no round.
func TestShapes_InlineSidechainPublic(t *testing.T) {
	path := filepath.Join(sharedTranscripts, "d-kimuson__claude-code-viewer", "5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("SKIPPING: %s not found", path)
	}
	p := parseShape(t, path)
	side := 0
	for _, r := range p.rounds {
		_, n := p.kinds(r.Seq, cairn.ToolUse)
		side += n
		for _, b := range p.blocks[r.Seq] {
			if b.Kind == cairn.UserText && b.Sidechain {
				t.Errorf("round %d: a sidechain prompt is the user's text: %q", r.Seq, b.Content)
			}
		}
	}
	if side == 0 {
		t.Error("no sidechain tool call read")
	}
}
