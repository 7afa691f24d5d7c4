package surgery

import (
	"strconv"

	"github.com/cairn-dev/cairn"
)

// Apply returns a copy of r whose blocks are rendered at fidelity f: user
// and assistant text as stored; thinking full, as a reference, or left out;
// tool calls and results full, summarized, or left out. Leaving out a tool
// call leaves out its result too, so no result is ever orphaned. r's blocks
// are not changed.
func Apply(r *cairn.Round, f cairn.Fidelity) *cairn.Round {
	out := *r
	out.Blocks = make([]*cairn.Block, 0, len(r.Blocks))
	dropped := map[string]bool{} // tool ids whose call was left out
	for _, b := range r.Blocks {
		c := *b
		switch b.Kind {
		case cairn.Thinking:
			switch {
			case f.Thinking == cairn.DetailOmit:
				continue
			case f.Thinking.Condensed():
				c.Content, c.Detail = cairn.ThinkingReference(r.SessionID, r.Seq, b.Content), cairn.DetailReference
			}
		case cairn.ToolUse:
			switch {
			case f.ToolUse == cairn.DetailOmit:
				dropped[b.ToolID] = true
				continue
			case f.ToolUse.Condensed():
				c.Content, c.Detail = cairn.ToolUseSummary(b.ToolName, b.Content), cairn.DetailSummary
			}
		case cairn.ToolResult:
			switch {
			case f.ToolResult == cairn.DetailOmit || dropped[b.ToolID]:
				continue
			case f.ToolResult.Condensed():
				c.Content, c.Detail = cairn.ToolResultSummary(b.Content, b.IsError), cairn.DetailSummary
			}
		}
		out.Blocks = append(out.Blocks, &c)
	}
	return &out
}

func itoa(n int) string { return strconv.Itoa(n) }
