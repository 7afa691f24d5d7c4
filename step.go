package cairn

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// A Step is one assistant turn inside a round: the blocks of one assistant
// message (its text, thinking and tool calls) followed by the tool results
// that answer those calls. A tool call and its result are always in the same
// step. Autonomous sessions have rounds of hundreds of steps; surgery keeps a
// long round as its prompt, an index line per early step and its last steps
// in full.
//
// Steps are numbered from 1 within their round. What comes before the first
// assistant block (the user's prompt, hook output) is the round's prompt, not
// a step.
type Step struct {
	SessionID string `json:"session_id"`
	RoundSeq  int    `json:"round"`
	Seq       int    `json:"seq"`

	// FirstLine and LastLine bound the lines of the step: from the line of
	// its first block to the line before the next step's first block (the
	// round's last line for the last step), so lines without blocks (hook
	// progress, snapshots) belong to the step they fall in.
	FirstLine int `json:"first_line"`
	LastLine  int `json:"last_line"`

	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`

	// Text is the step's assistant text, previewed.
	Text  string      `json:"text,omitempty"`
	Calls []*StepCall `json:"calls,omitempty"`

	// Blocks are the step's blocks, in round order.
	Blocks []*Block `json:"-"`
}

// A StepCall is one tool call of a step with what its result said.
type StepCall struct {
	Tool    string `json:"tool"`
	Arg     string `json:"arg,omitempty"`    // the key argument: a path, a command, a pattern
	Result  string `json:"result,omitempty"` // the first characters of the result
	Chars   int    `json:"chars"`            // the result's size in characters
	IsError bool   `json:"is_error,omitempty"`
	// Answered reports that the call's result is in the step.
	Answered bool `json:"answered"`

	id string
}

// ID is the call's tool id, which joins it to its result.
func (c *StepCall) ID() string { return c.id }

// WorkedIn reports whether the step was worked between from and to, a
// frame's push and pop (to zero: not popped yet): its time overlaps
// theirs, so the step that pushed the frame and the one that popped it
// are the frame's. A step without times is no frame's.
func (s *Step) WorkedIn(from, to time.Time) bool {
	return !s.StartedAt.IsZero() && (to.IsZero() || !s.StartedAt.After(to)) && !s.EndedAt.Before(from)
}

// StepPreviewLen is the number of characters of a result or of assistant
// text an index line of a step keeps.
const StepPreviewLen = 60

// Steps splits a round's blocks into steps. A step starts at an assistant
// block of a message other than the current step's; a block with no message
// id starts one when it follows a tool result. Tool results, meta text and
// sidechain blocks stay in the step they follow. lastLine is the round's last
// line (the last step runs to it); blocks must be in round order.
func Steps(blocks []*Block, lastLine int) []*Step {
	var steps []*Step
	var cur *Step
	var n StepCounter
	for _, b := range blocks {
		if seq := n.next(b); seq > len(steps) {
			if cur != nil {
				cur.LastLine = max(cur.FirstLine, b.LineNo-1)
			}
			cur = &Step{SessionID: b.SessionID, RoundSeq: b.RoundSeq, Seq: seq, FirstLine: b.LineNo}
			steps = append(steps, cur)
		}
		if cur == nil {
			continue
		}
		cur.add(b)
	}
	if cur != nil {
		cur.LastLine = max(cur.FirstLine, lastLine)
	}
	return steps
}

// A StepCounter numbers blocks by the step [Steps] puts them in, one block
// at a time, so that a store can record each block's step as it writes
// the blocks of whole rounds in order. The zero value is ready to use; a
// block of another round than the last one starts the count again.
type StepCounter struct {
	session    string
	round      int
	seq        int
	msg        string // the message id the current step started with
	prevResult bool
}

// Next returns the step b belongs to: 0 for the round's prompt (what
// comes before its first assistant block), else the step's Seq.
func (c *StepCounter) Next(b *Block) int {
	if b.RoundSeq != c.round || b.SessionID != c.session {
		*c = StepCounter{session: b.SessionID, round: b.RoundSeq}
	}
	return c.next(b)
}

// next is Next within one round, whatever the blocks say of theirs.
func (c *StepCounter) next(b *Block) int {
	if b.Role == "assistant" && !b.Sidechain {
		starts := c.seq == 0 ||
			(b.MessageID != "" && b.MessageID != c.msg) ||
			(b.MessageID == "" && c.prevResult)
		if starts {
			c.seq++
			c.msg = b.MessageID
		}
	}
	c.prevResult = b.Kind == ToolResult
	return c.seq
}

func (s *Step) add(b *Block) {
	s.Blocks = append(s.Blocks, b)
	if !b.Timestamp.IsZero() {
		if s.StartedAt.IsZero() || b.Timestamp.Before(s.StartedAt) {
			s.StartedAt = b.Timestamp
		}
		if b.Timestamp.After(s.EndedAt) {
			s.EndedAt = b.Timestamp
		}
	}
	switch b.Kind {
	case AssistantText:
		if !b.Sidechain {
			if p := PreviewText(b.Content, StepPreviewLen); p != "" {
				s.Text = p
			}
		}
	case ToolUse:
		s.Calls = append(s.Calls, &StepCall{Tool: b.ToolName, Arg: ToolArg(b.ToolName, b.Content), id: b.ToolID})
	case ToolResult:
		for _, c := range s.Calls {
			if c.id == b.ToolID && !c.Answered {
				c.Answered, c.IsError = true, b.IsError
				c.Chars = utf8.RuneCountInString(b.Content)
				c.Result = PreviewText(b.Content, StepPreviewLen)
				break
			}
		}
	}
}

// IndexLine renders the step as one line: where it is, the calls with their
// key arguments and first characters of their results, and the text:
//
//	7.12 Bash `go test ./...` → ok cairn 0.4s · Edit store.go → ok | "Tests pass."
func (s *Step) IndexLine() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d.%d", s.RoundSeq, s.Seq)
	for i, c := range s.Calls {
		if i > 0 {
			b.WriteString(" ·")
		}
		b.WriteString(" " + c.Tool)
		if c.Arg != "" {
			b.WriteString(" `" + c.Arg + "`")
		}
		switch {
		case !c.Answered:
			b.WriteString(" → (no result)")
		case c.IsError:
			b.WriteString(" → error: " + c.Result)
		case c.Result != "":
			b.WriteString(" → " + c.Result)
		}
	}
	if s.Text != "" {
		if len(s.Calls) > 0 {
			b.WriteString(" |")
		}
		b.WriteString(" " + strconvQuote(s.Text))
	}
	return b.String()
}

func strconvQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `'`) + `"` }

// toolArgKeys are the input fields that say what a call was about, in the
// order they are preferred (Claude Code's and Codex's, opencode's filePath, Gemini
// CLI's absolute_path and dir_path).
var toolArgKeys = []string{
	"file_path", "filePath", "absolute_path", "notebook_path", "path", "dir_path", "command", "cmd", "pattern", "url", "query",
	"description", "subagent_type", "prompt", "skill",
}

// ToolArg returns the key argument of a tool call from its JSON input: the
// file path of a Read or Edit, the command of a Bash, the pattern of a Grep,
// and so on, previewed; "" if the input names none.
func ToolArg(tool, input string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &fields) != nil {
		return ""
	}
	for _, k := range toolArgKeys {
		raw, ok := fields[k]
		if !ok {
			continue
		}
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch v := v.(type) {
		case string:
			if v != "" && strings.HasSuffix(k, "path") {
				return previewTail(v, StepPreviewLen)
			}
			if v != "" {
				return PreviewText(v, StepPreviewLen)
			}
		case []any:
			var parts []string
			for _, p := range v {
				if s, ok := p.(string); ok {
					parts = append(parts, s)
				}
			}
			if len(parts) > 0 {
				return PreviewText(strings.Join(parts, " "), StepPreviewLen)
			}
		}
	}
	if tool == "TodoWrite" {
		if raw, ok := fields["todos"]; ok {
			var todos []json.RawMessage
			if json.Unmarshal(raw, &todos) == nil {
				return fmt.Sprintf("%d todos", len(todos))
			}
		}
	}
	return ""
}

// PreviewText returns the first n characters of s with whitespace collapsed,
// ending in "…" when cut.
func PreviewText(s string, n int) string {
	var b strings.Builder
	i, space := 0, false
	for j, r := range s {
		if unicode.IsSpace(r) {
			space = i > 0
			continue
		}
		if space {
			if i == n {
				return b.String() + "…"
			}
			b.WriteByte(' ')
			i, space = i+1, false
		}
		if i == n {
			return b.String() + "…"
		}
		_, w := utf8.DecodeRuneInString(s[j:])
		b.WriteString(s[j : j+w])
		i++
	}
	return b.String()
}

// previewTail keeps the last n characters of a path, where its name is.
func previewTail(s string, n int) string {
	r := []rune(strings.TrimSpace(s))
	if len(r) <= n {
		return string(r)
	}
	return "…" + string(r[len(r)-n+1:])
}

// ToolInputString returns the string field key of a tool call's JSON input,
// "" if the input is not an object or the field is not a string.
func ToolInputString(input, key string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(input), &fields) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(fields[key], &s) != nil {
		return ""
	}
	return s
}

// WriteInputValues writes a tool call's JSON input as its values in key
// order (a command, a path, an edit's text) rather than as escaped JSON,
// strings as they are and anything else as JSON, so what the model reads
// can be searched for as text; an input that is not an object is written
// as it is.
func WriteInputValues(b *strings.Builder, input []byte) {
	var fields map[string]any
	if json.Unmarshal(input, &fields) != nil {
		b.WriteByte(' ')
		b.Write(input)
		return
	}
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch v := fields[k].(type) {
		case string:
			b.WriteString(" " + k + ": " + v)
		default:
			raw, _ := json.Marshal(v)
			b.WriteString(" " + k + ": " + string(raw))
		}
	}
}

// MapCalls rewrites, in place, each tool call that mapCall maps to another
// harness's tool (its name and JSON input) and gives the results that
// answer it the new name: how a writer of one harness takes another's
// rounds (opencode's as Claude Code's, Gemini CLI's as Claude Code's).
// Calls it does not map, and every other block, stay as they are.
func MapCalls(blocks []*Block, mapCall func(tool, input string) (name string, args map[string]any, ok bool)) []*Block {
	names := map[string]string{}
	for _, b := range blocks {
		switch b.Kind {
		case ToolUse:
			if name, args, ok := mapCall(b.ToolName, b.Content); ok {
				raw, err := json.Marshal(args)
				if err != nil {
					continue
				}
				b.ToolName, b.Content = name, string(raw)
				names[b.ToolID] = name
			}
		case ToolResult:
			if name, ok := names[b.ToolID]; ok {
				b.ToolName = name
			}
		}
	}
	return blocks
}
