package opencode

import (
	"encoding/json"
	"iter"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn"
)

// PreviewLen is the number of characters kept in a round's previews.
const PreviewLen = cairn.RoundPreviewLen

// A builder turns log lines into rounds in order. It implements
// [cairn.RoundBuilder]. A user message starts a round, each assistant
// message is one step (opencode writes one per model call), and parts
// become blocks: text, reasoning, a tool call with its result, files and
// compactions. A record seen again (a later version of a document) or a
// part of a message that is not the current one adds no block: its line
// is kept, its content was indexed with its first version. A part of a
// message no record has named is a step of its own (see Add).
type builder struct {
	session *cairn.Session

	seq       int
	open      *roundState
	completed []*roundState

	msg      string // the current message's id
	role     string // its role
	lastTime int64  // the newest message's creation time (ms)
	seen     map[string]bool
}

type roundState struct {
	cairn.RoundDraft
}

func newBuilder(s *cairn.Session, fromSeq int) *builder {
	return &builder{session: s, seq: max(fromSeq-1, 0), seen: map[string]bool{}}
}

// Add implements [cairn.RoundBuilder].
func (b *builder) Add(l *cairn.Line) string {
	r, status := parseRecord(l.Raw)
	l.Status = status
	if r == nil || status == cairn.LineUnknownType || status == cairn.LineInvalidJSON {
		l.RoundSeq = b.current(l).Round.Seq
		kind := ""
		if r != nil {
			kind = r.Kind
		}
		return problem(status, kind)
	}
	l.Type, l.UUID = r.Kind, r.ID
	again := b.seen[r.Kind+r.ID]
	b.seen[r.Kind+r.ID] = true
	switch r.Kind {
	case KindSession:
		noteSession(b.session, r)
		if t := r.intCol("time_created"); t > 0 && l.Timestamp.IsZero() {
			l.Timestamp = time.UnixMilli(t)
		}
		l.RoundSeq = b.current(l).Round.Seq
		return problem(status, "")
	case KindMessage:
		var m message
		_ = json.Unmarshal(r.Data, &m)
		created := m.Time.Created
		if created == 0 {
			created = r.intCol("time_created")
		}
		if created > 0 {
			l.Timestamp = time.UnixMilli(created)
		}
		if !again && created >= b.lastTime {
			b.lastTime = created
			b.msg, b.role = r.ID, m.Role
			if m.Role == "user" {
				b.seq++
				if b.open != nil {
					b.completed = append(b.completed, b.open)
				}
				b.open = nil
			}
		}
		rs := b.current(l)
		b.touch(rs, l)
		if m.Role == "assistant" && m.Tokens != nil && (r.ID == b.msg || rs.Usage.Has(r.ID)) {
			rs.addUsage(r.ID, m)
		}
		return problem(status, "")
	}
	var p part
	_ = json.Unmarshal(r.Data, &p)
	msgID := p.MessageID
	if msgID == "" {
		msgID = r.col("message_id")
	}
	if p.Time != nil && p.Time.Start > 0 {
		l.Timestamp = time.UnixMilli(p.Time.Start)
	} else if t := r.intCol("time_created"); t > 0 {
		l.Timestamp = time.UnixMilli(t)
	}
	rs := b.current(l)
	b.touch(rs, l)
	if !again && msgID != "" && msgID != b.msg && !b.seen[KindMessage+msgID] && b.open != nil {
		// A part of a message whose record the lines do not hold: a
		// piece keeping only a round's later steps keeps each from its
		// first block's line, the step's message record falling in the
		// step before. It is a reply's, a round beginning at its one
		// user message's record.
		b.msg, b.role = msgID, "assistant"
	}
	if !again && msgID == b.msg {
		b.addBlocks(rs, l, r.ID, &p)
	}
	return problem(status, "")
}

func problem(status cairn.LineStatus, kind string) string {
	switch status {
	case cairn.LineInvalidJSON:
		return "invalid JSON (kept raw)"
	case cairn.LineInvalidUTF8:
		return "invalid UTF-8 (kept raw, indexed with replacement characters)"
	case cairn.LineUnknownType:
		return "unknown record kind " + strconv.Quote(kind) + " (kept raw)"
	}
	return ""
}

func (b *builder) current(l *cairn.Line) *roundState {
	if b.open == nil {
		b.open = &roundState{
			RoundDraft: cairn.RoundDraft{Round: &cairn.Round{SessionID: b.session.ID, Seq: b.seq, FirstLine: l.No, LastLine: l.No}},
		}
	}
	l.RoundSeq = b.open.Round.Seq
	return b.open
}

func (b *builder) touch(rs *roundState, l *cairn.Line) {
	r := rs.Round
	r.LastLine = l.No
	if l.Timestamp.IsZero() {
		return
	}
	if r.StartedAt.IsZero() || l.Timestamp.Before(r.StartedAt) {
		r.StartedAt = l.Timestamp
	}
	if l.Timestamp.After(r.EndedAt) {
		r.EndedAt = l.Timestamp
	}
}

// addBlocks adds the blocks of one part of the current message.
func (b *builder) addBlocks(rs *roundState, l *cairn.Line, id string, p *part) {
	user := b.role == "user"
	step := ""
	if !user {
		step = b.msg
	}
	switch p.Type {
	case "text":
		switch {
		case user && (p.Synthetic || p.Ignored):
			rs.Add(l, "user", cairn.MetaText, p.Text, "", nil)
		case user:
			rs.Add(l, "user", cairn.UserText, p.Text, "", nil)
		default:
			rs.Add(l, "assistant", cairn.AssistantText, p.Text, step, nil)
		}
	case "reasoning":
		rs.Add(l, "assistant", cairn.Thinking, p.Text, step, nil)
	case "tool":
		if p.State == nil {
			return
		}
		callID := p.CallID
		if callID == "" {
			callID = id
		}
		input := string(p.State.Input)
		if input == "" || input == "null" {
			input = "{}"
		}
		rs.Add(l, "assistant", cairn.ToolUse, input, step, func(bl *cairn.Block) { bl.ToolName, bl.ToolID = p.Tool, callID })
		rs.Round.AddTool(p.Tool)
		switch p.State.Status {
		case "completed":
			rs.Add(l, "user", cairn.ToolResult, p.State.Output, "", func(bl *cairn.Block) {
				bl.ToolName, bl.ToolID, bl.AgentID = p.Tool, callID, p.State.Metadata.SessionID
			})
		case "error":
			rs.Add(l, "user", cairn.ToolResult, p.State.Error, "", func(bl *cairn.Block) {
				bl.ToolName, bl.ToolID, bl.IsError, bl.AgentID = p.Tool, callID, true, p.State.Metadata.SessionID
			})
		}
	case "file":
		name := p.Filename
		if name == "" {
			name = p.URL
		}
		rs.Add(l, roleOf(user), cairn.MetaText, "[file: "+name+"]", step, nil)
	case "compaction":
		rs.Add(l, "system", cairn.CompactionBlock, "opencode compacted the conversation", "", nil)
	case "subtask", "agent":
		rs.Add(l, roleOf(user), cairn.MetaText, "["+p.Type+"] "+p.Text, step, nil)
	}
}

func roleOf(user bool) string {
	if user {
		return "user"
	}
	return "assistant"
}

// addUsage records an assistant message's usage, its latest version.
func (rs *roundState) addUsage(id string, m message) {
	u := cairn.Usage{Input: m.Tokens.Input, Output: m.Tokens.Output + m.Tokens.Reasoning,
		CacheRead: m.Tokens.Cache.Read, CacheCreation: m.Tokens.Cache.Write}
	rs.Usage.Set(rs.Round.Seq, id, m.ModelID, u)
}

// Finish implements [cairn.RoundBuilder]. The open round is returned every
// time, with all its blocks, because lines still to come may extend it.
func (b *builder) Finish() ([]*cairn.Round, iter.Seq[[]*cairn.Block], []*cairn.MessageUsage) {
	drafts := make([]*cairn.RoundDraft, 0, len(b.completed)+1)
	for _, rs := range b.completed {
		drafts = append(drafts, &rs.RoundDraft)
	}
	if b.open != nil {
		drafts = append(drafts, &b.open.RoundDraft)
	}
	b.completed = nil
	return cairn.FinishRounds(drafts)
}

// Preview returns the first [PreviewLen] characters of s with whitespace
// collapsed, ending in "…" when cut.
func Preview(s string) string { return cairn.PreviewText(s, PreviewLen) }
