package codex

import (
	"crypto/rand"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// An Exporter writes a [cairn.Materialization] as a Codex rollout that the
// real client resumes with `codex exec resume <ThreadID>` (or `codex
// resume`):
//
//   - a session_meta line naming the new thread (the source's own, when
//     given in Meta, with id, session_id, timestamp and cwd replaced);
//   - a user message holding Summary (the index of compressed rounds and
//     where every full round came from), as Codex itself carries a
//     compaction's summary;
//   - then the full rounds' items: a Codex round's lines unchanged but for
//     ordinal (renumbered) and what fidelity condenses; a round of another
//     harness (Claude Code) translated from its blocks (see [Exporter.Blocks]);
//   - a function call is never kept without its output, nor an output
//     without its call, and the rollout ends on an assistant message.
//
// The session_meta and compacted lines of the sources and their token and
// progress events are left out: only the conversation is carried.
type Exporter struct {
	ThreadID string    // the new thread's uuid
	Cwd      string    // recorded in session_meta; default: the first source's project
	Summary  string    // the text of the summary message
	Now      time.Time // stamps session_meta; default: time.Now()

	// Meta is the first source's session_meta line, when it is a Codex
	// thread: its fields (instructions, provider, version) are kept.
	Meta []byte

	// Blocks returns the blocks of a full round from a session of another
	// harness, at the materialization's fidelity; nil allows Codex sources
	// only.
	Blocks func(p *cairn.Piece) ([]*cairn.Block, error)

	// Crossed counts, after Lines, what a round of another harness lost on
	// the way: thinking dropped and tool calls rendered as text.
	Crossed Crossing
}

// A Crossing counts what did not cross into a Codex export
// ([cairn.Crossing]).
type Crossing = cairn.Crossing

// NewThreadID returns a fresh uuid of version 7, as Codex names threads:
// its first bytes are the time, so names sort by creation.
func NewThreadID(now time.Time) string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic(err)
	}
	ms := uint64(now.UnixMilli())
	for i := 0; i < 6; i++ {
		b[i] = byte(ms >> (40 - 8*i))
	}
	b[6] = b[6]&0x0f | 0x70
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// RolloutPath returns where Codex keeps a thread started at t:
// sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl under its home.
func RolloutPath(codexHome, id string, t time.Time) string {
	t = t.Local()
	return filepath.Join(SessionsDir(codexHome), t.Format("2006"), t.Format("01"), t.Format("02"),
		"rollout-"+t.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

// TimeFormat is how Codex stamps its lines.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// An outItem is one line on its way out.
type outItem struct {
	line    *object // the whole line: {timestamp, type, payload}
	payload *object // its payload, when it is rewritten
	kind    string  // response_item, turn_context, event_msg
	typ     string  // the payload's type
	role    string
	call    string // the call id it makes or answers
	output  bool   // answers call
}

// Lines returns the rollout's lines, each with its terminator. Returns
// EINVALID if nothing of m can be resumed: no full round with an assistant
// message.
func (x *Exporter) Lines(m *cairn.Materialization) ([][]byte, error) {
	if !uuid.Valid(x.ThreadID) {
		return nil, cairn.Errorf(cairn.EINVALID, "Export needs a thread uuid, got %q.", x.ThreadID)
	}
	now := x.Now
	if now.IsZero() {
		now = time.Now()
	}
	cwd := x.Cwd
	if cwd == "" && len(m.Sources) > 0 {
		cwd = m.Sources[0].Project
	}
	x.Crossed = Crossing{}
	var out []*outItem
	for _, p := range m.FullPieces() {
		src := m.Source(p.Round.SessionID)
		var items []*outItem
		var err error
		if src == nil || src.Agent == cairn.AgentCodex {
			items, err = keepItems(p, p.FidelityOr(m.Fidelity))
		} else {
			if x.Blocks == nil {
				return nil, cairn.Errorf(cairn.EINVALID, "Session %s is a %s session: a Codex export of it needs its blocks.", src.ID, src.Agent)
			}
			var blocks []*cairn.Block
			if blocks, err = x.Blocks(p); err == nil {
				items = x.crossItems(p.Round, blocks)
			}
		}
		if err != nil {
			return nil, err
		}
		out = append(out, items...)
	}
	out = trimToAnswer(pairCalls(out))
	if len(out) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to resume: no round in full has an assistant message.")
	}

	meta, err := x.meta(now, cwd, m)
	if err != nil {
		return nil, err
	}
	summary := responseItem(stamp(out[0], now), obj("type", "message", "role", "user",
		"content", []any{map[string]string{"type": "input_text", "text": x.Summary}}))
	objs := append([]*object{meta, summary}, lines2objects(out)...)
	// A rollout whose source numbers its lines is numbered whole: the
	// client refuses one whose last line, a crossed round's, has no
	// ordinal.
	numbered := false
	for _, l := range objs[2:] {
		numbered = numbered || l.get("ordinal") != nil
	}
	lines := make([][]byte, 0, len(objs))
	for i, l := range objs {
		if numbered || i < 2 {
			setOrdinal(l, i)
		}
		lines = append(lines, l.bytes())
	}
	return lines, nil
}

func lines2objects(items []*outItem) []*object {
	out := make([]*object, len(items))
	for i, it := range items {
		if it.payload != nil {
			it.line.set("payload", json.RawMessage(it.payload.bytes()[:len(it.payload.bytes())-1]))
		}
		out[i] = it.line
	}
	return out
}

// setOrdinal numbers a line, keeping ordinal second as Codex writes it.
func setOrdinal(l *object, n int) {
	if l.get("ordinal") != nil {
		l.set("ordinal", n)
		return
	}
	l.members = append(l.members[:1], append([]member{{"ordinal", marshal(n)}}, l.members[1:]...)...)
}

// stamp returns the time of an item's line, else now.
func stamp(it *outItem, now time.Time) string {
	var s string
	if json.Unmarshal(it.line.get("timestamp"), &s) == nil && s != "" {
		return s
	}
	return now.UTC().Format(TimeFormat)
}

func responseItem(ts string, payload *object) *object {
	return obj("timestamp", ts, "type", "response_item", "payload", json.RawMessage(payload.bytes()[:len(payload.bytes())-1]))
}

// meta returns the new thread's session_meta line.
func (x *Exporter) meta(now time.Time, cwd string, m *cairn.Materialization) (*object, error) {
	ts := now.UTC().Format(TimeFormat)
	var payload *object
	if len(x.Meta) > 0 {
		line, err := decodeObject(x.Meta)
		if err != nil {
			return nil, fmt.Errorf("session_meta: %w", err)
		}
		if payload, err = decodeObject(line.get("payload")); err != nil {
			return nil, fmt.Errorf("session_meta payload: %w", err)
		}
	} else {
		version := ""
		if len(m.Sources) > 0 && m.Sources[0].Agent == cairn.AgentCodex {
			version = m.Sources[0].Version
		}
		if version == "" {
			version = "0.0.0"
		}
		payload = obj("id", "", "timestamp", "", "cwd", "", "originator", "cairn", "cli_version", version, "source", "exec")
	}
	payload.set("id", x.ThreadID)
	if payload.get("session_id") != nil {
		payload.set("session_id", x.ThreadID)
	}
	payload.set("timestamp", ts)
	if cwd != "" {
		payload.set("cwd", cwd)
	}
	// A thread cut from another is not a sub-agent any more.
	if parentThread(payload.get("source")) != "" {
		payload.set("source", "exec")
	}
	return obj("timestamp", ts, "type", "session_meta", "payload", json.RawMessage(payload.bytes()[:len(payload.bytes())-1])), nil
}

// callTypes are the items that make a call another item answers, and
// outputTypes those that answer one.
var (
	callTypes   = map[string]bool{"function_call": true, "custom_tool_call": true, "local_shell_call": true}
	outputTypes = map[string]bool{"function_call_output": true, "custom_tool_call_output": true}
)

// keepItems returns the items of a Codex round in full at fidelity f.
func keepItems(p *cairn.Piece, f cairn.Fidelity) ([]*outItem, error) {
	var out []*outItem
	dropped := map[string]string{} // call id → the summary of a call left out
	for _, l := range p.Lines {
		// A budget may keep only some of a round's lines (its prompt and
		// last steps): the rest are not the client's.
		if !p.Kept(l.No) || (l.Status != cairn.LineOK && l.Status != cairn.LineInvalidUTF8) {
			continue
		}
		switch l.Type {
		case "response_item", "turn_context", "event_msg":
		default:
			continue
		}
		line, err := decodeObject(l.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", l.SessionID, l.No, err)
		}
		pr, _ := parseLine(l.Raw)
		it := pr.item
		o := &outItem{line: line, kind: pr.kind, typ: it.Type, role: it.Role}
		if pr.kind == "event_msg" {
			// Progress and token events describe the old thread's run.
			if it.Type != "user_message" && it.Type != "agent_message" {
				continue
			}
			out = append(out, o)
			continue
		}
		if pr.kind != "response_item" {
			out = append(out, o)
			continue
		}
		ts := stampOf(line)
		say := func(text string) {
			out = append(out, &outItem{line: responseItem(ts, assistantMessage(text)), kind: "response_item", typ: "message", role: "assistant"})
		}
		switch {
		case it.Type == "reasoning":
			switch f.Thinking {
			case cairn.DetailFull:
				out = append(out, o)
			case cairn.DetailReference, cairn.DetailSummary:
				say(cairn.ThinkingReference(p.Round.SessionID, p.Round.Seq, it.reasoning()))
			}
			continue
		case callTypes[it.Type]:
			o.call = it.CallID
			if f.ToolUse == cairn.DetailFull {
				out = append(out, o)
				continue
			}
			name, input := it.Name, it.arguments()
			if it.Type == "custom_tool_call" {
				input = it.Input
			}
			dropped[it.CallID] = ""
			if f.ToolUse.Condensed() {
				dropped[it.CallID] = cairn.ToolUseSummary(name, input)
			}
			continue
		case outputTypes[it.Type]:
			o.call, o.output = it.CallID, true
			text, failed := outputText(it.Output)
			if s, ok := dropped[it.CallID]; ok {
				if f.ToolResult.Condensed() && s != "" {
					s += " " + cairn.ToolResultSummary(text, failed)
				}
				if s != "" {
					say(s)
				}
				continue
			}
			switch f.ToolResult {
			case cairn.DetailFull:
			case cairn.DetailOmit:
				o.rewriteOutput("[result omitted]")
			default:
				o.rewriteOutput(cairn.ToolResultSummary(text, failed))
			}
			out = append(out, o)
			continue
		case it.Type == "web_search_call" || it.Type == "tool_search_call" || it.Type == "image_generation_call" || it.Type == "tool_search_output":
			if f.ToolUse == cairn.DetailFull {
				out = append(out, o)
			}
			continue
		case it.Type == "ghost_snapshot" || it.Type == "compaction":
			continue
		}
		out = append(out, o)
	}
	return out, nil
}

// rewriteOutput replaces an output item's output by text.
func (o *outItem) rewriteOutput(text string) {
	payload, err := decodeObject(o.line.get("payload"))
	if err != nil {
		return
	}
	payload.set("output", text)
	o.payload = payload
}

func stampOf(line *object) string {
	var s string
	_ = json.Unmarshal(line.get("timestamp"), &s)
	return s
}

func assistantMessage(text string) *object {
	return obj("type", "message", "role", "assistant",
		"content", []any{map[string]any{"type": "output_text", "text": text, "annotations": []any{}}})
}

func userMessage(text string) *object {
	return obj("type", "message", "role", "user", "content", []any{map[string]string{"type": "input_text", "text": text}})
}

// pairCalls drops calls without an output and outputs without a call.
func pairCalls(in []*outItem) []*outItem {
	calls, outputs := map[string]bool{}, map[string]bool{}
	for _, it := range in {
		if it.call == "" {
			continue
		}
		if it.output {
			outputs[it.call] = true
		} else {
			calls[it.call] = true
		}
	}
	out := in[:0]
	for _, it := range in {
		if it.call != "" && (it.output && !calls[it.call] || !it.output && !outputs[it.call]) {
			continue
		}
		out = append(out, it)
	}
	return out
}

// trimToAnswer cuts what follows the last assistant message.
func trimToAnswer(in []*outItem) []*outItem {
	for i := len(in) - 1; i >= 0; i-- {
		if in[i].kind == "response_item" && in[i].typ == "message" && in[i].role == "assistant" {
			return in[:i+1]
		}
	}
	return nil
}

// crossItems translates a round of another harness from its blocks: user
// and assistant text as messages, tool calls as Codex's own where they map
// (a shell command, a file read, an edit) with their results as outputs,
// other calls as text saying what was called and what it returned; thinking
// cannot cross and is dropped (and counted).
func (x *Exporter) crossItems(r *cairn.Round, blocks []*cairn.Block) []*outItem {
	var out []*outItem
	calls := map[string]*cairn.Block{}
	mapped := map[string]crossCall{}
	for _, b := range blocks {
		if b.Sidechain {
			continue
		}
		ts := b.Timestamp.UTC().Format(TimeFormat)
		add := func(payload *object, call string, output bool) {
			var p item
			_ = json.Unmarshal(payload.bytes(), &p)
			out = append(out, &outItem{line: responseItem(ts, payload), kind: "response_item", typ: p.Type, role: p.Role, call: call, output: output})
		}
		switch b.Kind {
		case cairn.UserText:
			add(userMessage(b.Content), "", false)
		case cairn.AssistantText:
			if strings.TrimSpace(b.Content) != "" {
				add(assistantMessage(b.Content), "", false)
			}
		case cairn.Thinking:
			if b.Detail.Condensed() {
				add(assistantMessage(b.Content), "", false)
			} else {
				x.Crossed.ThinkingDropped++
			}
		case cairn.ToolUse:
			if b.Detail != "" {
				add(assistantMessage(b.Content), "", false)
				continue
			}
			calls[b.ToolID] = b
			if c, ok := toCodexCall(b.ToolName, b.Content); ok {
				mapped[b.ToolID] = c
				add(c.item(b.ToolID), b.ToolID, false)
			}
		case cairn.ToolResult:
			use := calls[b.ToolID]
			if use == nil {
				if b.Detail != "" {
					add(assistantMessage(b.Content), "", false)
				}
				continue
			}
			if c, ok := mapped[b.ToolID]; ok {
				x.Crossed.CallsMapped++
				add(c.output(b.ToolID, b.Content), b.ToolID, true)
				continue
			}
			x.Crossed.CallsAsText++
			add(assistantMessage(callAsText(use, b)), "", false)
		}
	}
	return out
}

// callAsText says what a call that has no Codex counterpart did.
func callAsText(use, result *cairn.Block) string {
	status := "returned"
	if result.IsError {
		status = "failed with"
	}
	return fmt.Sprintf("[Called %s with %s; it %s:]\n%s", use.ToolName, use.Content, status, result.Content)
}

// MetaLine returns the session_meta line among a thread's first lines, nil
// if there is none.
func MetaLine(lines []*cairn.Line) []byte {
	for _, l := range lines {
		if l.Type == "session_meta" {
			return l.Raw
		}
	}
	return nil
}
