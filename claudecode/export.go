package claudecode

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// An Exporter writes a [cairn.Materialization] as a Claude Code session
// that the real client resumes with `claude --resume <SessionID>`:
//
//   - a compact_boundary system line (the root) and an isCompactSummary user
//     line holding Summary (the index of compressed rounds and where every
//     full round came from), as Claude Code itself writes after /compact;
//   - then the full rounds' own lines, unchanged except sessionId, cwd,
//     isSidechain, usage (below), a parentUuid chain re-linked in order, and a cairnSource
//     member naming the round they came from; each line keeps its own
//     timestamp (a merge interleaves sessions whose times overlap: the
//     client orders by parentUuid, not by time);
//   - thinking blocks are copied byte for byte with their message or left
//     out, never edited; a tool call is never kept without its result;
//   - a piece's own fidelity overrides the materialization's, and only the
//     lines it keeps (its prompt and last steps) are written;
//   - assistant turns left next to each other by a fidelity that drops the
//     tool calls between them (text) become one message: they share the
//     message id of the last, which the client reads as one assistant
//     message (the API wants roles to alternate);
//   - the session ends on a completed assistant text turn or on the results
//     of a completed tool call (a round of an autonomous session often ends
//     there: the client resumes it and the next prompt follows the results).
//   - the usage each kept reply reports is the exported session's own size
//     up to that reply, not its source's (see describeUsage): the client,
//     and cairn's hooks, read the last one as how full the context is.
//
// Metadata lines (queue-operation, api-request*, last-prompt, …), sidechain
// lines and older compact boundaries and summaries (with the attachments
// the client wrote right after them: re-read files, environment) are left
// out: only the conversation is carried.
type Exporter struct {
	SessionID string // the new session's uuid
	Cwd       string // recorded on every line; default: the first source's project
	Summary   string // the text of the summary line

	// NewUUID returns a fresh uuid for each synthesized line; default: a
	// random version 4 uuid.
	NewUUID func() string

	// Blocks returns the blocks of a full round from a session of another
	// harness (Codex), at the materialization's fidelity; nil allows Claude
	// Code sources only. See foreign.go.
	Blocks func(p *cairn.Piece) ([]*cairn.Block, error)
	// Crossed counts, after Lines, what rounds of another harness lost.
	Crossed Crossing
}

// NewUUID returns a random version 4 uuid.
func NewUUID() string { return uuid.New() }

// TimeFormat is how exported lines stamp their time, as Claude Code does.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// An outLine is a kept line on its way out.
type outLine struct {
	obj     *object
	typ     string
	ts      time.Time
	uses    []string // tool_use ids it holds
	results []string // tool_use ids it answers
	msgID   string
	text    bool // an assistant line holding text
}

// Lines returns the session's lines, each with its terminator. Returns
// EINVALID if nothing of m can be resumed: no full round that ends on a
// completed assistant turn.
func (x *Exporter) Lines(m *cairn.Materialization) ([][]byte, error) {
	if x.SessionID == "" || !uuid.Valid(x.SessionID) {
		return nil, cairn.Errorf(cairn.EINVALID, "Export needs a session uuid, got %q.", x.SessionID)
	}
	newUUID := x.NewUUID
	if newUUID == nil {
		newUUID = NewUUID
	}
	cwd := x.Cwd
	if cwd == "" && len(m.Sources) > 0 {
		cwd = m.Sources[0].Project
	}
	x.Crossed = Crossing{}

	var out []*outLine
	for _, p := range m.FullPieces() {
		kept, err := x.keep(m, p)
		if err != nil {
			return nil, err
		}
		out = append(out, kept...)
	}
	out = pairTools(out)
	out = trimToCompletedTurn(out)
	if len(out) == 0 {
		return nil, nothingToResume(m)
	}
	mergeAssistantRuns(out)
	x.describeUsage(m, out)

	version, branch := "", ""
	if len(m.Sources) > 0 {
		version, branch = m.Sources[0].Version, m.Sources[0].GitBranch
	}
	var start time.Time
	for _, l := range out {
		if !l.ts.IsZero() && (start.IsZero() || l.ts.Before(start)) {
			start = l.ts
		}
	}
	if start.IsZero() {
		start = time.Unix(0, 0).UTC()
	}
	boundary, summary := newUUID(), newUUID()
	lines := make([][]byte, 0, len(out)+2)
	lines = append(lines, synth(
		"parentUuid", nil, "logicalParentUuid", nil, "isSidechain", false, "type", "system",
		"subtype", "compact_boundary", "content", "Conversation compacted", "isMeta", false,
		"timestamp", start.Add(-2*time.Millisecond).Format(TimeFormat), "uuid", boundary, "level", "info",
		"compactMetadata", map[string]any{"trigger": "manual", "preTokens": len(x.Summary) / 4},
		"userType", "external", "cwd", cwd, "sessionId", x.SessionID, "version", version, "gitBranch", branch,
	))
	lines = append(lines, synth(
		"parentUuid", boundary, "isSidechain", false, "type", "user",
		"message", map[string]any{"role": "user", "content": x.Summary},
		"isVisibleInTranscriptOnly", true, "isCompactSummary", true, "uuid", summary,
		"timestamp", start.Add(-time.Millisecond).Format(TimeFormat),
		"userType", "external", "cwd", cwd, "sessionId", x.SessionID, "version", version, "gitBranch", branch,
	))
	parent, last := summary, start.Add(-time.Millisecond)
	for _, l := range out {
		ts := l.ts
		if ts.IsZero() {
			ts = last.Add(time.Millisecond)
		}
		last = ts
		uuid := l.obj.str("uuid")
		if uuid == "" {
			uuid = newUUID()
			l.obj.set("uuid", uuid)
		}
		l.obj.set("parentUuid", parent)
		l.obj.set("isSidechain", false)
		l.obj.set("sessionId", x.SessionID)
		l.obj.set("timestamp", ts.Format(TimeFormat))
		if cwd != "" {
			l.obj.set("cwd", cwd)
		}
		lines = append(lines, l.obj.appendTo(nil))
		parent = uuid
	}
	return lines, nil
}

func synth(kv ...any) []byte {
	o := &object{}
	for i := 0; i < len(kv); i += 2 {
		o.set(kv[i].(string), kv[i+1])
	}
	return o.appendTo(nil)
}

// keepLines returns the conversation lines of a full round at fidelity f.
func keepLines(p *cairn.Piece, f cairn.Fidelity) ([]*outLine, error) {
	var out []*outLine
	dropped := map[string]bool{} // tool calls left out: their results go too
	compaction := false          // since a compaction's boundary or summary, before the next message
	source := json.RawMessage(`{"sessionId":` + string(appendQuoted(nil, p.Round.SessionID)) + `,"round":` + strconv.Itoa(p.Round.Seq) + `}`)
	for _, l := range p.Lines {
		if (l.Status != cairn.LineOK && l.Status != cairn.LineInvalidUTF8) || !p.Kept(l.No) {
			continue
		}
		switch l.Type {
		case "user", "assistant", "system", "attachment":
		default:
			continue
		}
		obj, err := decodeObject(l.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s line %d: %w", l.SessionID, l.No, err)
		}
		if obj.bool("isCompactSummary") || strings.Contains(obj.str("subtype"), "compact_boundary") {
			compaction = true
			continue
		}
		if l.Type == "attachment" && compaction {
			// The client's own re-reads of recent files and context for
			// the summary it wrote; without the summary they stand alone
			// as user messages of their own.
			continue
		}
		if l.Type == "attachment" && hookAttachment(obj) {
			// What a hook told the source session (cairn's pressure note,
			// its start context): stale in another session, whose own
			// hooks speak for it. Kept in the store.
			continue
		}
		if l.Type == "user" || l.Type == "assistant" {
			compaction = false
		}
		if obj.bool("isSidechain") {
			continue
		}
		o := &outLine{obj: obj, typ: l.Type, ts: l.Timestamp}
		if l.Type == "user" || l.Type == "assistant" {
			if !o.applyFidelity(p.Round, f, dropped) {
				continue
			}
		}
		obj.set("cairnSource", source)
		out = append(out, o)
	}
	return out, nil
}

// hookAttachment reports whether an attachment line holds a hook's output
// (hook_additional_context, hook_success, …), as 2.1.x writes it.
func hookAttachment(obj *object) bool {
	a, err := decodeObject(obj.get("attachment"))
	return err == nil && strings.HasPrefix(a.str("type"), "hook_")
}

// keptWhole reports whether fidelity f keeps blocks of type typ as they
// are.
func keptWhole(f cairn.Fidelity, typ string) bool {
	switch typ {
	case "thinking", "redacted_thinking":
		return f.Thinking == cairn.DetailFull
	case "tool_use", "server_tool_use":
		return f.ToolUse == cairn.DetailFull
	case "tool_result":
		return f.ToolResult == cairn.DetailFull
	}
	return true
}

// applyFidelity rewrites a message's process blocks at fidelity f and
// notes its tool calls and results. It reports false when nothing is left
// of the line.
func (o *outLine) applyFidelity(r *cairn.Round, f cairn.Fidelity, dropped map[string]bool) bool {
	msgRaw := o.obj.get("message")
	if len(msgRaw) == 0 {
		return true
	}
	msg, err := decodeObject(msgRaw)
	if err != nil {
		return true
	}
	o.msgID = msg.str("id")
	content := msg.get("content")
	if len(content) == 0 || content[0] != '[' {
		o.text = o.typ == "assistant"
		return true
	}
	blocks, ok := splitArray(content)
	if !ok {
		return true
	}
	changed := false
	kept := blocks[:0]
	for _, raw := range blocks {
		// The kind and ids decide most blocks; the text, input or result is
		// decoded only for a block that is condensed.
		var head struct {
			Type      string `json:"type"`
			ID        string `json:"id"`
			ToolUseID string `json:"tool_use_id"`
		}
		unmarshal(raw, &head)
		var b contentBlock
		if !keptWhole(f, head.Type) {
			unmarshal(raw, &b)
		} else {
			b.Type, b.ID, b.ToolUseID = head.Type, head.ID, head.ToolUseID
		}
		switch b.Type {
		case "thinking", "redacted_thinking":
			if f.Thinking == cairn.DetailOmit {
				changed = true
				continue
			} else if f.Thinking.Condensed() {
				raw, changed = mustMarshal(map[string]string{"type": "text", "text": cairn.ThinkingReference(r.SessionID, r.Seq, b.Thinking)}), true
			}
		case "tool_use", "server_tool_use":
			if f.ToolUse == cairn.DetailOmit {
				dropped[b.ID], changed = true, true
				continue
			} else if f.ToolUse.Condensed() {
				raw = mustMarshal(map[string]any{"type": b.Type, "id": b.ID, "name": b.Name,
					"input": map[string]string{"summary": cairn.ToolUseSummary(b.Name, string(b.Input))}})
				changed = true
			}
			o.uses = append(o.uses, b.ID)
		case "tool_result":
			if dropped[b.ToolUseID] {
				changed = true
				continue
			}
			switch {
			case f.ToolResult == cairn.DetailOmit:
				raw = mustMarshal(map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "is_error": b.IsError,
					"content": fmt.Sprintf("[tool result omitted — cairn inject %s %d]", r.SessionID, r.Seq)})
				changed = true
			case f.ToolResult.Condensed():
				raw = mustMarshal(map[string]any{"type": "tool_result", "tool_use_id": b.ToolUseID, "is_error": b.IsError,
					"content": cairn.ToolResultSummary(resultText(b.Content), b.IsError)})
				changed = true
			}
			o.results = append(o.results, b.ToolUseID)
		case "text":
			if o.typ == "assistant" {
				o.text = true
			}
		}
		kept = append(kept, raw)
	}
	if len(kept) == 0 {
		return false
	}
	if changed {
		msg.set("content", kept)
		enc := msg.appendTo(nil)
		o.obj.set("message", json.RawMessage(enc[:len(enc)-1]))
		// The client's own copy of a result would carry what was condensed.
		o.obj.del("toolUseResult")
	}
	return true
}

// pairTools drops tool calls without a result and results without a call:
// the client drops an assistant line whose tool_use has no result on load,
// and the API refuses a result without its call.
func pairTools(in []*outLine) []*outLine {
	used, answered := map[string]bool{}, map[string]bool{}
	for _, l := range in {
		for _, id := range l.uses {
			used[id] = true
		}
		for _, id := range l.results {
			answered[id] = true
		}
	}
	out := in[:0]
	for _, l := range in {
		ok := true
		for _, id := range l.uses {
			ok = ok && answered[id]
		}
		for _, id := range l.results {
			ok = ok && used[id]
		}
		if ok {
			out = append(out, l)
		}
	}
	return out
}

// trimToCompletedTurn cuts what follows the last place a resumed session
// may end: a completed assistant text turn (the last assistant line with
// text that no later line of the same message follows), or a line of tool
// results after which no later result of the same calls comes (pairTools
// already dropped calls without results).
func trimToCompletedTurn(in []*outLine) []*outLine {
	for i := len(in) - 1; i >= 0; i-- {
		l := in[i]
		switch {
		case l.typ == "assistant" && l.text:
			complete := true
			for _, later := range in[i+1:] {
				if later.typ == "assistant" && later.msgID != "" && later.msgID == l.msgID {
					complete = false
					break
				}
			}
			if complete {
				return in[:i+1]
			}
		case l.typ == "user" && len(l.results) > 0:
			return in[:i+1]
		}
	}
	return nil
}

// mergeAssistantRuns gives the assistant lines of one run (no user line
// between them) the message id of the run's last message, so that the
// client sends them as one assistant message. A run whose earlier
// messages call tools is left alone: their results would follow them.
func mergeAssistantRuns(out []*outLine) {
	var run []*outLine
	flush := func() {
		if len(run) < 2 {
			run = run[:0]
			return
		}
		last := run[len(run)-1].msgID
		for _, l := range run {
			if l.msgID != last && len(l.uses) > 0 {
				run = run[:0]
				return
			}
		}
		for _, l := range run {
			if l.msgID == last || l.msgID == "" || last == "" {
				continue
			}
			msg, err := decodeObject(l.obj.get("message"))
			if err != nil {
				continue
			}
			msg.set("id", last)
			enc := msg.appendTo(nil)
			l.obj.set("message", json.RawMessage(enc[:len(enc)-1]))
			l.msgID = last
		}
		run = run[:0]
	}
	for _, l := range out {
		switch l.typ {
		case "user":
			flush()
		case "assistant":
			run = append(run, l)
		}
	}
	flush()
}

// nothingToResume says why no round of m in full gives a session to
// resume, naming the rounds.
func nothingToResume(m *cairn.Materialization) error {
	var rounds []string
	for _, p := range m.FullPieces() {
		rounds = append(rounds, fmt.Sprintf("%s round %d", shortID(p.Round.SessionID), p.Round.Seq))
	}
	if len(rounds) == 0 {
		return cairn.Errorf(cairn.EINVALID, "Nothing to resume: no round is in full.")
	}
	return cairn.Errorf(cairn.EINVALID, "Nothing to resume: %s in full %s neither an assistant answer nor a completed tool call at fidelity %s (%s).",
		strings.Join(rounds, ", "), map[bool]string{true: "holds", false: "hold"}[len(rounds) == 1],
		fmt.Sprintf("thinking=%s,tool_use=%s,tool_result=%s", m.Fidelity.Thinking, m.Fidelity.ToolUse, m.Fidelity.ToolResult), "keep a later round, or a fuller fidelity")
}

func shortID(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}
