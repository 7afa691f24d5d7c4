package claudecode

import (
	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json/jsontext"
)

// EditPatch reads the hunks Claude Code recorded for an edit in a tool
// result's line (toolUseResult.structuredPatch, written by Edit, MultiEdit
// and a Write over a file): the changed lines numbered as in the file,
// which the result's text ("has been updated successfully") does not
// tell. A line without them is ENOTFOUND; a hunk without lines, or
// numbered from before line 1, is left out. A Write that made a new file
// (toolUseResult.type "create") has no hunks and no error: nothing came
// before it, whatever the session wrote at that path earlier.
func EditPatch(raw []byte) ([]cairn.Hunk, error) {
	var e struct {
		ToolUseResult jsontext.Value `json:"toolUseResult"`
	}
	if !unmarshalLine(raw, &e) {
		return nil, cairn.Errorf(cairn.EINVALID, "The line is not JSON.")
	}
	var r struct {
		Type            string `json:"type"`
		StructuredPatch []struct {
			OldStart int      `json:"oldStart"`
			OldLines int      `json:"oldLines"`
			NewStart int      `json:"newStart"`
			NewLines int      `json:"newLines"`
			Lines    []string `json:"lines"`
		} `json:"structuredPatch"`
	}
	if len(e.ToolUseResult) == 0 || e.ToolUseResult.Kind() != '{' || !unmarshal(e.ToolUseResult, &r) {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "The line records no edit's hunks.")
	}
	if r.Type == "create" {
		return []cairn.Hunk{}, nil
	}
	var hunks []cairn.Hunk
	for _, h := range r.StructuredPatch {
		if len(h.Lines) == 0 || h.OldStart < 0 || h.NewStart < 1 {
			continue
		}
		hunks = append(hunks, cairn.Hunk{OldStart: h.OldStart, OldLines: h.OldLines, NewStart: h.NewStart, NewLines: h.NewLines, Lines: h.Lines})
	}
	if len(hunks) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "The line records no edit's hunks.")
	}
	return hunks, nil
}
