package cairn_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestParseFidelity(t *testing.T) {
	for _, c := range []struct {
		in      string
		want    cairn.Fidelity
		wantErr string
	}{
		{in: "text", want: cairn.Fidelity{Thinking: cairn.DetailOmit, ToolUse: cairn.DetailOmit, ToolResult: cairn.DetailOmit}},
		{in: "tool_use=omit,tool_result=omit", want: cairn.Fidelity{Thinking: cairn.DetailFull, ToolUse: cairn.DetailOmit, ToolResult: cairn.DetailOmit}},
		{in: "tool_use=summary,tool_result=omit", want: cairn.Fidelity{Thinking: cairn.DetailFull, ToolUse: cairn.DetailSummary, ToolResult: cairn.DetailOmit}},
		{in: "tool_use=omit,tool_result=full", wantErr: "keeps results without their calls"},
		{in: "tool_use=omit", wantErr: "tool_use=omit with tool_result=full"},
		{in: "tool_use=omit,tool_result=summary", wantErr: "tool_result=summary"},
		{in: "tool_use=nope", wantErr: "want KIND="},
	} {
		got, err := cairn.ParseFidelity(c.in)
		switch {
		case c.wantErr != "":
			if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParseFidelity(%q) = %v, want EINVALID with %q", c.in, err, c.wantErr)
			}
		case err != nil:
			t.Errorf("ParseFidelity(%q): %v", c.in, err)
		case got != c.want:
			t.Errorf("ParseFidelity(%q) = %+v, want %+v", c.in, got, c.want)
		}
	}
}
