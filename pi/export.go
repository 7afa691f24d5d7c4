package pi

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/jsonw"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// An Exporter writes a [cairn.Materialization] as a new pi session file
// (format 3) that the real pi resumes with `pi --session <path>`:
//
//   - the header naming the new session, its working directory and, when
//     the materialization was cut from one pi session, that session's file
//     as parentSession, as pi's own --fork and /clone do;
//   - one chain of message entries (each the child of the one before): the
//     first prompt carries Summary (the index of compressed rounds and
//     where every full round came from) as its first text block, then
//     every full round from its blocks: prompts as user messages (a prompt
//     left unanswered joins the next one, so roles alternate), each step as
//     one assistant message with its text and tool calls, each call's
//     result as a toolResult message after it (a call the round holds no
//     result for is left out, as is a result without its call);
//   - it ends on an assistant message or the results of its calls (a
//     round cut after a call, as a /tree back to a result leaves it): a
//     last prompt left unanswered is not kept.
//
// A new file, not a branch of the source: pi appends to a session file
// while it runs, from the leaf it holds, so an entry cairn added to a file
// a running pi has open would be lost from its tree or left beside it; and
// a file of its own names the revive in /resume like any session.
//
// Thinking is not written (pi sends a thinking block back to Anthropic
// only with the signature the store does not keep): each is counted in
// [Crossing.ThinkingDropped]. Calls of other harnesses (Claude Code's and
// Codex's, and Gemini CLI's and opencode's as Claude Code's) become pi's
// bash, read, edit and write where they map ([Crossing]), text otherwise.
type Exporter struct {
	SessionID     string    // the new session's uuid
	Cwd           string    // the working directory pi resumes in
	Summary       string    // the text of the summary
	Now           time.Time // stamps the entries; default time.Now()
	ParentSession string    // the source pi session's file, if any

	// Provider and Model name the replies' model (default "cairn",
	// "cairn-export"): pi restores the session's last model when it is
	// one it knows, and keeps its own otherwise.
	Provider, Model string

	// Blocks returns the blocks of a full round at the materialization's
	// fidelity.
	Blocks func(p *cairn.Piece) ([]*cairn.Block, error)

	// Crossed counts, after Lines, what did not cross.
	Crossed Crossing
}

// A Crossing counts what rounds of another harness lost on their way
// into a pi export ([cairn.Crossing]).
type Crossing = cairn.Crossing

// NewSessionID returns a fresh random uuid (version 4).
func NewSessionID() string { return uuid.New() }

// FileName is the session's file name, as pi names its own:
// <time, its colons and dots dashes>_<id>.jsonl.
func (x *Exporter) FileName(now time.Time) string {
	return strings.NewReplacer(":", "-", ".", "-").Replace(now.UTC().Format(TimeFormat)) + "_" + x.SessionID + ".jsonl"
}

// TimeFormat is how pi stamps its entries (JavaScript's toISOString).
const TimeFormat = "2006-01-02T15:04:05.000Z"

// A part is one content block on its way out: text or a tool call,
// written in pi's field order.
type outPart struct {
	typ, text, id, name string
	args                map[string]any
}

func (p outPart) MarshalJSON() ([]byte, error) {
	if p.typ == "toolCall" {
		return jsonw.Ordered("type", "toolCall", "id", p.id, "name", p.name, "arguments", p.args), nil
	}
	return jsonw.Ordered("type", "text", "text", p.text), nil
}

// An out is one message on its way out.
type out struct {
	role    string
	content []outPart
	calls   map[string]bool // the tool calls of an assistant message, by id
	call    map[string]any  // a toolResult's fields
	step    string
	ts      time.Time
	done    bool // an assistant message whose calls were answered
}

// Lines returns the session's lines, each with its newline. Returns
// EINVALID if nothing of m can be resumed: no full round with a reply.
func (x *Exporter) Lines(m *cairn.Materialization) ([][]byte, error) {
	if !uuid.Valid(x.SessionID) {
		return nil, cairn.Errorf(cairn.EINVALID, "Export needs a session uuid, got %q.", x.SessionID)
	}
	if x.Blocks == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "A pi export needs the rounds' blocks.")
	}
	now := x.Now
	if now.IsZero() {
		now = time.Now()
	}
	x.Crossed = Crossing{}
	var msgs []*out
	for _, p := range m.FullPieces() {
		blocks, err := x.Blocks(p)
		if err != nil {
			return nil, err
		}
		src := m.Source(p.Round.SessionID)
		native := src == nil || src.Agent == cairn.AgentPi
		msgs = append(msgs, x.round(blocks, native)...)
	}
	msgs = alternate(msgs)
	for len(msgs) > 0 && msgs[len(msgs)-1].role == "user" {
		msgs = msgs[:len(msgs)-1]
	}
	if len(msgs) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to resume: no round in full has a reply.")
	}
	summary := outPart{typ: "text", text: x.Summary}
	if msgs[0].role == "user" {
		msgs[0].content = append([]outPart{summary}, msgs[0].content...)
	} else {
		msgs = append([]*out{{role: "user", content: []outPart{summary}, ts: msgs[0].ts}}, msgs...)
	}
	cwd := x.Cwd
	if cwd == "" && len(m.Sources) > 0 {
		cwd = m.Sources[0].Project
	}
	provider, model := x.Provider, x.Model
	if provider == "" {
		provider = "cairn"
	}
	if model == "" {
		model = "cairn-export"
	}
	header := []any{"type", "session", "version", 3, "id", x.SessionID, "timestamp", now.UTC().Format(TimeFormat), "cwd", cwd}
	if x.ParentSession != "" {
		header = append(header, "parentSession", x.ParentSession)
	}
	lines := [][]byte{append(jsonw.Ordered(header...), '\n')}
	var parent any
	used := map[string]bool{}
	for _, msg := range msgs {
		ts := msg.ts
		if ts.IsZero() {
			ts = now
		}
		var body []byte
		switch msg.role {
		case "user":
			body = jsonw.Ordered("role", "user", "content", msg.content, "timestamp", ts.UnixMilli())
		case "assistant":
			stop := "stop"
			if len(msg.calls) > 0 {
				stop = "toolUse"
			}
			body = jsonw.Ordered("role", "assistant", "content", msg.content, "api", "anthropic-messages", "provider", provider, "model", model,
				"usage", zeroUsage, "stopReason", stop, "timestamp", ts.UnixMilli())
		case "toolResult":
			c := msg.call
			body = jsonw.Ordered("role", "toolResult", "toolCallId", c["id"], "toolName", c["name"], "content", msg.content, "isError", c["error"], "timestamp", ts.UnixMilli())
		}
		id := entryID(used)
		lines = append(lines, append(jsonw.Ordered("type", "message", "id", id, "parentId", parent, "timestamp", ts.UTC().Format(TimeFormat), "message", json.RawMessage(body)), '\n'))
		parent = id
	}
	return lines, nil
}

var zeroUsage = json.RawMessage(`{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}`)

// round turns one round's blocks into messages.
func (x *Exporter) round(blocks []*cairn.Block, native bool) []*out {
	var msgs []*out
	var cur *out
	results := map[string]bool{} // the calls answered, by the id written
	asText := map[string]string{}
	calls := map[string]*out{}
	reply := func(b *cairn.Block) *out {
		if cur == nil || cur.step != b.MessageID || cur.done {
			cur = &out{role: "assistant", step: b.MessageID, ts: b.Timestamp, calls: map[string]bool{}}
			msgs = append(msgs, cur)
		}
		return cur
	}
	say := func(b *cairn.Block, text string) {
		if strings.TrimSpace(text) == "" {
			return
		}
		r := reply(b)
		r.content = append(r.content, outPart{typ: "text", text: text})
	}
	for _, b := range blocks {
		if b.Sidechain {
			continue
		}
		switch b.Kind {
		case cairn.UserText:
			cur = nil
			if strings.TrimSpace(b.Content) != "" {
				msgs = append(msgs, &out{role: "user", content: []outPart{{typ: "text", text: b.Content}}, ts: b.Timestamp})
			}
		case cairn.AssistantText:
			say(b, b.Content)
		case cairn.Thinking:
			if b.Detail != "" {
				say(b, b.Content)
			} else {
				x.Crossed.ThinkingDropped++
			}
		case cairn.ToolUse:
			if b.Detail != "" {
				say(b, b.Content)
				continue
			}
			name, args, ok := b.ToolName, map[string]any(nil), true
			if native {
				ok = json.Unmarshal([]byte(b.Content), &args) == nil
			} else {
				name, args, ok = toPiCall(b.ToolName, b.Content)
			}
			if !ok || b.ToolID == "" {
				if !native {
					x.Crossed.CallsAsText++
				}
				asText[b.ToolID] = cairn.ToolUseSummary(b.ToolName, b.Content)
				continue
			}
			if !native {
				x.Crossed.CallsMapped++
			}
			if args == nil {
				args = map[string]any{}
			}
			id := callID(b.ToolID)
			r := reply(b)
			r.content = append(r.content, outPart{typ: "toolCall", id: id, name: name, args: args})
			r.calls[id] = true
			calls[b.ToolID] = r
		case cairn.ToolResult:
			if s, ok := asText[b.ToolID]; ok {
				delete(asText, b.ToolID)
				say(b, s+" "+cairn.ToolResultSummary(b.Content, b.IsError))
				continue
			}
			r := calls[b.ToolID]
			if r == nil || results[callID(b.ToolID)] {
				continue
			}
			results[callID(b.ToolID)] = true
			r.done = true
			var name string
			for _, c := range r.content {
				if c.typ == "toolCall" && c.id == callID(b.ToolID) {
					name = c.name
				}
			}
			text := b.Content
			if text == "" {
				text = "(no output)"
			}
			msgs = append(msgs, &out{role: "toolResult", content: []outPart{{typ: "text", text: text}}, ts: b.Timestamp,
				call: map[string]any{"id": callID(b.ToolID), "name": name, "error": b.IsError}})
		}
	}
	// A call without its result is not pi's: leave it out, and a reply
	// left empty with it.
	var kept []*out
	for _, msg := range msgs {
		if msg.role == "assistant" {
			var content []outPart
			for _, c := range msg.content {
				if c.typ == "toolCall" && !results[c.id] {
					delete(msg.calls, c.id)
					continue
				}
				content = append(content, c)
			}
			msg.content = content
			if len(content) == 0 {
				continue
			}
		}
		kept = append(kept, msg)
	}
	return kept
}

// alternate joins a user message that follows another (a prompt left
// unanswered) into the next, and an assistant message that follows
// another (a step whose calls were all left out) into the one before:
// the Messages API takes roles in turn.
func alternate(msgs []*out) []*out {
	var kept []*out
	for _, msg := range msgs {
		if n := len(kept); n > 0 && msg.role != "toolResult" && kept[n-1].role == msg.role {
			prev := kept[n-1]
			if msg.role == "user" {
				prev.content = append(prev.content, msg.content...)
				prev.ts = msg.ts
				continue
			}
			if len(prev.calls) == 0 {
				prev.content = append(prev.content, msg.content...)
				prev.calls = msg.calls
				continue
			}
		}
		kept = append(kept, msg)
	}
	return kept
}

var badID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^A-Za-z0-9_-]`) })

// callID is a tool call's id as the Messages API takes one
// (^[A-Za-z0-9_-]+$): another harness's id with its other characters as
// underscores, at most 64 of them.
func callID(id string) string {
	id = badID().ReplaceAllString(id, "_")
	if len(id) > 64 {
		id = id[:64]
	}
	return id
}

// entryID returns a fresh entry id as pi makes them: 8 hex digits, unique
// in the file.
func entryID(used map[string]bool) string {
	for {
		var b [4]byte
		if _, err := rand.Read(b[:]); err != nil {
			panic(err)
		}
		id := hex.EncodeToString(b[:])
		if !used[id] {
			used[id] = true
			return id
		}
	}
}
