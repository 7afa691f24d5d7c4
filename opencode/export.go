package opencode

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// An Exporter writes a [cairn.Materialization] as an opencode session the
// real client continues (`opencode --session <id>`, `opencode run
// --session <id>`):
//
//   - a user message holding Summary (the index of compressed rounds and
//     where every full round came from);
//   - then each full round: a whole opencode round at full fidelity as its
//     own documents (keep.go), any other from its blocks, at the
//     materialization's fidelity and only the lines a piece keeps: its
//     prompt as a user message of its own (the first round's joins the
//     summary's), each step (a model turn) as one assistant message with
//     its text and tool parts, a call and its result together in one
//     completed tool part, as opencode records them;
//   - calls of another harness become opencode's own where they map
//     (shell → bash, read, edit, write; see toOpencodeCall), other calls
//     text saying what was called and what it returned; thinking does not
//     cross and is dropped and counted; a call without its result is left
//     out and counted;
//   - the session ends on an assistant message.
type Exporter struct {
	Cwd      string    // the session's directory
	Title    string    // default: "cairn: " and the first prompt
	Summary  string    // the text of the first message
	Now      time.Time // stamps the records; default: time.Now()
	Provider string    // the provider and model the messages name (Target's)
	Model    string
	Agent    string // opencode's agent (mode); default "build"

	// Blocks returns the blocks of a full round at the materialization's
	// fidelity (from its own harness's reader).
	Blocks func(p *cairn.Piece) ([]*cairn.Block, error)

	// Crossed counts, after Records, what did not cross.
	Crossed Crossing

	ids IDs
}

// A Crossing counts what a session lost on its way into opencode.
type Crossing struct {
	ThinkingDropped int `json:"thinking_dropped"`
	CallsMapped     int `json:"calls_mapped"`
	CallsAsText     int `json:"calls_as_text"`
	CallsUnanswered int `json:"calls_unanswered"`
}

// A Session is an export on its way into opencode's store: its session
// record and its messages, each followed by its parts.
type Session struct {
	ID       string
	Title    string
	Created  time.Time
	Messages []*Message
}

// A Message is one message with its parts, as documents without the ids
// opencode keeps in columns.
type Message struct {
	ID      string
	Created int64 // ms; the order of the messages, whatever their documents say
	Data    map[string]any
	Parts   []*Part
}

// A Part is one part of a message.
type Part struct {
	ID   string
	Data map[string]any
}

// Export builds the session. Returns EINVALID if nothing of m can be
// resumed: no full round with an assistant message.
func (x *Exporter) Export(m *cairn.Materialization) (*Session, error) {
	now := x.Now
	if now.IsZero() {
		now = time.Now()
	}
	if x.Agent == "" {
		x.Agent = "build"
	}
	x.Crossed = Crossing{}
	s := &Session{ID: x.ids.Descending("ses", now), Created: now}
	clock := now
	tick := func() int64 { clock = clock.Add(time.Millisecond); return clock.UnixMilli() }

	var user *Message
	parent := "" // the latest user message's id, which a reply names
	newUser := func(text string) {
		user = x.userMessage(tick(), text)
		parent = user.ID
		s.Messages = append(s.Messages, user)
	}
	newUser(x.Summary)
	summary := user
	firstPrompt := ""
	for _, p := range m.FullPieces() {
		if user != summary {
			// A round's prompt is a user message of its own; only the
			// first round's joins the summary's.
			user = nil
		}
		if src := m.Source(p.Round.SessionID); src != nil && src.Agent == cairn.AgentOpencode &&
			len(p.Keep) == 0 && p.FidelityOr(m.Fidelity) == cairn.FullFidelity {
			if kept, ok := x.keepRound(p, tick); ok && len(kept) > 0 {
				if firstPrompt == "" {
					firstPrompt = promptOf(kept)
				}
				s.Messages = append(s.Messages, kept...)
				user, parent = nil, lastUser(kept, parent)
				continue
			}
		}
		if x.Blocks == nil {
			return nil, cairn.Errorf(cairn.EINVALID, "An opencode export needs the rounds' blocks.")
		}
		blocks, err := x.Blocks(p)
		if err != nil {
			return nil, err
		}
		results := map[string]*cairn.Block{}
		for _, b := range blocks {
			if b.Kind == cairn.ToolResult && b.ToolID != "" && p.Kept(b.LineNo) {
				results[b.ToolID] = b
			}
		}
		var asst *Message
		step := "\x00"
		for _, b := range blocks {
			if b.Sidechain || !p.Kept(b.LineNo) {
				continue
			}
			switch b.Kind {
			case cairn.UserText:
				if strings.TrimSpace(b.Content) == "" {
					continue
				}
				if firstPrompt == "" {
					firstPrompt = b.Content
				}
				if asst != nil || user == nil {
					newUser(b.Content)
				} else {
					user.Parts = append(user.Parts, x.part(tick(), map[string]any{"type": "text", "text": b.Content}))
					summary = nil
				}
				asst, step = nil, "\x00"
				continue
			case cairn.AssistantText, cairn.ToolUse, cairn.Thinking:
			default:
				continue
			}
			if b.Kind == cairn.Thinking {
				x.Crossed.ThinkingDropped++
				continue
			}
			if asst == nil || b.MessageID != step {
				asst = x.assistantMessage(tick(), parent)
				s.Messages = append(s.Messages, asst)
				step = b.MessageID
			}
			if b.Kind == cairn.AssistantText {
				if strings.TrimSpace(b.Content) != "" {
					asst.Parts = append(asst.Parts, x.part(tick(), map[string]any{"type": "text", "text": b.Content}))
				}
				continue
			}
			res := results[b.ToolID]
			if res == nil {
				x.Crossed.CallsUnanswered++
				continue
			}
			asst.Parts = append(asst.Parts, x.toolPart(tick(), b, res))
		}
	}
	// Drop empty assistant messages and end on an assistant message.
	var msgs []*Message
	for _, msg := range s.Messages {
		if msg.Data["role"] == "assistant" && len(msg.Parts) == 0 {
			continue
		}
		msgs = append(msgs, msg)
	}
	end := len(msgs)
	for end > 0 && msgs[end-1].Data["role"] != "assistant" {
		end--
	}
	if end == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to resume: the output has no full round with an assistant message.")
	}
	s.Messages = msgs[:end]
	for _, msg := range s.Messages {
		if msg.Data["role"] != "assistant" || msg.Data["finish"] != nil {
			continue
		}
		msg.Data["finish"] = "stop"
		for _, pt := range msg.Parts {
			if pt.Data["type"] == "tool" {
				msg.Data["finish"] = "tool-calls"
			}
		}
	}
	s.Title = x.Title
	if s.Title == "" {
		s.Title = "cairn: " + Preview(firstPrompt)
	}
	return s, nil
}

// lastUser returns the id of the last user message of msgs, else id.
func lastUser(msgs []*Message, id string) string {
	for _, m := range msgs {
		if m.Data["role"] == "user" {
			id = m.ID
		}
	}
	return id
}

// promptOf returns the text of the first user message's first text part.
func promptOf(msgs []*Message) string {
	for _, m := range msgs {
		if m.Data["role"] != "user" {
			continue
		}
		for _, p := range m.Parts {
			if t, ok := p.Data["text"].(string); ok && p.Data["type"] == "text" {
				return t
			}
		}
	}
	return ""
}

func (x *Exporter) userMessage(ms int64, text string) *Message {
	msg := &Message{ID: x.ids.Ascending("msg", time.UnixMilli(ms)), Created: ms, Data: map[string]any{
		"role": "user", "time": map[string]any{"created": ms}, "agent": x.Agent,
	}}
	if x.Provider != "" && x.Model != "" {
		// Without it the client takes its configured model.
		msg.Data["model"] = map[string]any{"providerID": x.Provider, "modelID": x.Model}
	}
	msg.Parts = append(msg.Parts, x.part(ms, map[string]any{"type": "text", "text": text}))
	return msg
}

func (x *Exporter) assistantMessage(ms int64, parent string) *Message {
	return &Message{ID: x.ids.Ascending("msg", time.UnixMilli(ms)), Created: ms, Data: map[string]any{
		"parentID": parent, "role": "assistant", "mode": x.Agent, "agent": x.Agent,
		"path":    map[string]any{"cwd": x.Cwd, "root": x.Cwd},
		"cost":    0,
		"tokens":  map[string]any{"total": 0, "input": 0, "output": 0, "reasoning": 0, "cache": map[string]any{"write": 0, "read": 0}},
		"modelID": x.Model, "providerID": x.Provider,
		"time": map[string]any{"created": ms, "completed": ms},
	}}
}

func (x *Exporter) part(ms int64, data map[string]any) *Part {
	if data["type"] == "text" {
		data["time"] = map[string]any{"start": ms, "end": ms}
	}
	return &Part{ID: x.ids.Ascending("prt", time.UnixMilli(ms)), Data: data}
}

// toolPart is a call and its result as one completed tool part, or as
// text when the call has no opencode tool.
func (x *Exporter) toolPart(ms int64, call, res *cairn.Block) *Part {
	name, args, ok := toOpencodeCall(call.ToolName, call.Content)
	if !ok {
		x.Crossed.CallsAsText++
		text := "[called " + call.ToolName + " with " + call.Content + "]\n[it returned]\n" + res.Content
		return x.part(ms, map[string]any{"type": "text", "text": text})
	}
	if name != call.ToolName {
		x.Crossed.CallsMapped++
	}
	state := map[string]any{"status": "completed", "input": args, "output": res.Content,
		"title": title(name, args), "metadata": map[string]any{}, "time": map[string]any{"start": ms, "end": ms}}
	if res.IsError {
		state = map[string]any{"status": "error", "input": args, "error": res.Content,
			"metadata": map[string]any{}, "time": map[string]any{"start": ms, "end": ms}}
	}
	callID := call.ToolID
	if callID == "" {
		callID = "call_" + strings.TrimPrefix(x.ids.Ascending("c", time.UnixMilli(ms)), "c_")
	}
	return x.part(ms, map[string]any{"type": "tool", "tool": name, "callID": callID, "state": state})
}

func title(name string, args map[string]any) string {
	for _, k := range []string{"description", "filePath", "command", "pattern", "url"} {
		if s, ok := args[k].(string); ok && s != "" {
			return s
		}
	}
	return name
}

// Records returns the session's documents as log records of the SQLite
// era, in the order opencode reads them, with the row columns
// WriteSession sets: what an import of the exported session reads.
func (s *Session) Records() []*Record {
	var out []*Record
	for _, m := range s.Messages {
		data, _ := json.Marshal(m.Data)
		out = append(out, &Record{Kind: KindMessage, ID: m.ID, Row: map[string]json.RawMessage{
			"id": jsonOf(m.ID), "session_id": jsonOf(s.ID)}, Data: data})
		for _, p := range m.Parts {
			data, _ := json.Marshal(p.Data)
			out = append(out, &Record{Kind: KindPart, ID: p.ID, Row: map[string]json.RawMessage{
				"id": jsonOf(p.ID), "message_id": jsonOf(m.ID), "session_id": jsonOf(s.ID)}, Data: data})
		}
	}
	return out
}

func jsonOf(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}
