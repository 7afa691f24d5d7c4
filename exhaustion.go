package cairn

import "encoding/json"

// Context exhaustion (seed 004): an agent whose context has run out tries
// to write and sends no content, call after call ("3 empty Write
// failures"). cairn notices the run and takes the phase-recovery path: the
// current phase restarts from its boundary with the core and the index of
// files produced so far, so a fresh agent reads files instead of
// remembering.

// DefaultExhaustionRun is how many empty writes in a row mean the context
// ran out.
const DefaultExhaustionRun = 3

// A WriteCall is a file-writing tool call and how it ended, as read from a
// transcript.
type WriteCall struct {
	ToolID string
	Tool   string
	Path   string
	Empty  bool // no content: the field missing or ""
	Failed bool // the result was an error
}

// EmptyWrite reports whether a Write, Edit, MultiEdit or NotebookEdit call
// carries no content to write: Write without "content", an Edit without
// "new_string" and "old_string", a MultiEdit without edits. The tool
// rejects a missing field before any hook runs, so transcripts are where
// it shows. Other tools are never empty writes.
func EmptyWrite(tool, input string) bool {
	var in map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &in) != nil {
		return false
	}
	empty := func(k string) bool {
		raw, ok := in[k]
		if !ok {
			return true
		}
		var v any
		if json.Unmarshal(raw, &v) != nil || v == nil {
			return true
		}
		switch v := v.(type) {
		case string:
			return v == ""
		case []any:
			return len(v) == 0
		}
		return false
	}
	switch tool {
	case "Write":
		return empty("content")
	case "Edit":
		return empty("new_string") && empty("old_string")
	case "MultiEdit":
		return empty("edits")
	case "NotebookEdit":
		return empty("new_source")
	}
	return false
}

// ExhaustionRun returns how many empty writes end calls (in transcript
// order): the run of empty Write/Edit calls that failed or wrote nothing,
// not broken by a write that carried content. Calls of other tools are not
// in calls and do not break a run: an agent out of context still reads.
func ExhaustionRun(calls []WriteCall) int {
	n := 0
	for _, c := range calls {
		if c.Empty {
			n++
		} else {
			n = 0
		}
	}
	return n
}
