package gemini

import (
	"bytes"
	"encoding/json"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// A builder turns a session's lines into rounds in file order. It
// implements [cairn.RoundBuilder].
//
// A JSONL session is read a line at a time. A .json document (older
// releases, rewritten whole at every message) is read a message at a time:
// its lines are gathered until a message's object closes (the client
// writes it with two-space indentation, a message's "    {" to "    }"),
// and the lines take the round of the message they hold.
type builder struct {
	session *cairn.Session

	seq       int
	open      *roundState
	completed []*roundState

	lastTime time.Time

	document bool          // the file is a .json document
	inList   bool          // inside the document's "messages" list
	pending  []*cairn.Line // a document's lines not yet given a round
	answered map[string]bool
}

type roundState struct {
	cairn.RoundDraft
	owner []string // the message each block came from
}

func newBuilder(s *cairn.Session, fromSeq int) *builder {
	return &builder{session: s, seq: max(fromSeq-1, 0), answered: map[string]bool{}}
}

// Add implements [cairn.RoundBuilder].
func (b *builder) Add(l *cairn.Line) string {
	if l.No == 1 && string(bytes.TrimSpace(l.Raw)) == "{" || l.Type == typeDocument {
		// A round replayed from the store starts at a message inside the
		// document's list: its lines were stored as a document's.
		if !b.document && l.No > 1 {
			b.inList = true
		}
		b.document = true
	}
	if b.document {
		return b.addDocumentLine(l)
	}
	r, typ, status := parseLine(l.Raw)
	l.Status, l.Type = status, typ
	if r == nil || status == cairn.LineUnknownType {
		b.place(l)
		return cairn.LineProblem(status, typ)
	}
	b.record(l, r, typ)
	return cairn.LineProblem(status, typ)
}

// addDocumentLine gathers a .json document's lines into messages.
func (b *builder) addDocumentLine(l *cairn.Line) string {
	l.Type, l.Status = typeDocument, cairn.LineOK
	t := string(bytes.TrimRight(l.Raw, "\r\n"))
	switch {
	case !b.inList:
		b.place(l)
		if strings.HasPrefix(t, `  "messages": [`) {
			b.inList = true
		}
		b.header(t)
		return ""
	case t == "    {":
		b.flushPending()
		b.pending = []*cairn.Line{l}
		return ""
	case len(b.pending) > 0:
		b.pending = append(b.pending, l)
		if t != "    }" && t != "    }," {
			return ""
		}
		var doc bytes.Buffer
		for _, p := range b.pending {
			doc.Write(p.Raw)
		}
		lines := b.pending
		b.pending = nil
		var r record
		raw := bytes.TrimSuffix(bytes.TrimSpace(doc.Bytes()), []byte(","))
		if json.Unmarshal(raw, &r) != nil || r.ID == "" {
			for _, p := range lines {
				b.place(p)
			}
			return "a message of the document is not valid JSON (kept raw)"
		}
		first := lines[0]
		b.record(first, &r, r.Type)
		for _, p := range lines {
			p.Type, p.RoundSeq, p.Timestamp = typeDocument, first.RoundSeq, first.Timestamp
			b.open.Round.LastLine = max(b.open.Round.LastLine, p.No)
		}
		return ""
	default:
		if t == "  ]" || t == "  ]," {
			b.inList = false
		}
		b.place(l)
		return ""
	}
}

// header notes the document's own fields, one a line.
func (b *builder) header(t string) {
	var kv map[string]json.RawMessage
	if json.Unmarshal([]byte("{"+strings.TrimSuffix(strings.TrimSpace(t), ",")+"}"), &kv) != nil {
		return
	}
	var s string
	if json.Unmarshal(kv["startTime"], &s) == nil {
		if ts := parseTime(s); !ts.IsZero() && b.lastTime.IsZero() {
			b.lastTime = ts
		}
	}
}

func (b *builder) flushPending() {
	for _, p := range b.pending {
		b.place(p)
	}
	b.pending = nil
}

// place gives a line that holds no message the current round.
func (b *builder) place(l *cairn.Line) {
	if l.Timestamp.IsZero() {
		l.Timestamp = b.lastTime
	}
	rs := b.current(l)
	l.RoundSeq = rs.Round.Seq
	rs.Round.LastLine = max(rs.Round.LastLine, l.No)
}

func (b *builder) current(l *cairn.Line) *roundState {
	if b.open == nil {
		b.open = &roundState{
			RoundDraft: cairn.RoundDraft{Round: &cairn.Round{SessionID: b.session.ID, Seq: b.seq, FirstLine: l.No, LastLine: l.No}},
		}
	}
	return b.open
}

// record indexes one record read from line l.
func (b *builder) record(l *cairn.Line, r *record, typ string) {
	if ts := parseTime(r.Timestamp); !ts.IsZero() {
		l.Timestamp = ts
	} else if l.Timestamp.IsZero() {
		l.Timestamp = b.lastTime
	}
	b.lastTime = l.Timestamp
	if typ != typeMetadata && typ != typeSet && typ != typeRewind {
		l.UUID = r.ID
	}
	if b.startsRound(r) {
		b.seq++
		if b.open != nil {
			b.completed = append(b.completed, b.open)
		}
		b.open = nil
	}
	rs := b.current(l)
	l.RoundSeq = rs.Round.Seq
	rd := rs.Round
	rd.LastLine = max(rd.LastLine, l.No)
	if !l.Timestamp.IsZero() {
		if rd.StartedAt.IsZero() || l.Timestamp.Before(rd.StartedAt) {
			rd.StartedAt = l.Timestamp
		}
		if l.Timestamp.After(rd.EndedAt) {
			rd.EndedAt = l.Timestamp
		}
	}
	switch typ {
	case typeMetadata:
		if b.session.ID == "" {
			b.session.ID = r.SessionID
		}
	case typeRewind:
		rs.add(l, "", "system", cairn.MetaText, "Rewound to before message "+*r.RewindTo, "", nil)
	case typeSet:
		b.history(rs, l, r.Set.Messages)
	default:
		b.message(rs, l, r)
	}
}

// history indexes a {"$set": {"messages": …}} record: the whole history
// the client holds, written again when it starts or resumes a session (its
// messages are those of earlier lines, restated) or when it compressed the
// history (a <state_snapshot> stands for what came before). Only what is
// new is indexed: the context the client wrote (a history of nothing else),
// and a compression, as a compaction holding the snapshot.
func (b *builder) history(rs *roundState, l *cairn.Line, msgs []record) {
	restated := false
	for i := range msgs {
		if msgs[i].Type != "user" || !ignored(contentText(parts(msgs[i].Content))) {
			restated = true
		}
	}
	for i := range msgs {
		m := &msgs[i]
		t := contentText(parts(m.Content))
		switch {
		case m.Type == "user" && strings.Contains(t, "<state_snapshot>"):
			rs.add(l, "", "system", cairn.CompactionBlock, "Conversation compacted by the client ("+
				strconv.Itoa(len(msgs))+" messages kept)\n\n"+t, "", nil)
		case !restated && strings.TrimSpace(t) != "":
			rs.add(l, "", "system", cairn.MetaText, t, "", nil)
		}
	}
}

// startsRound reports whether r is a prompt: a user message holding the
// user's words, not function responses or context the client wrote.
func (b *builder) startsRound(r *record) bool {
	if r.ID == "" || r.Type != "user" || r.Set != nil || r.RewindTo != nil {
		return false
	}
	ps := parts(r.Content)
	for _, p := range ps {
		if p.FunctionResponse != nil {
			return false
		}
	}
	_, prompt := splitContext(ps)
	return !ignored(contentText(prompt))
}

// splitContext separates what the client wrote as context (a hook's
// additionalContext, <hook_context>…</hook_context>, which 0.61 puts before
// the prompt, in its own part or, run with -p, in the prompt's text;
// <session_context>) from the user's own words.
func splitContext(ps []part) (context, prompt []part) {
	for _, p := range ps {
		t := strings.TrimSpace(p.Text)
		switch {
		case strings.HasPrefix(t, "<hook_context>"):
			const end = "</hook_context>"
			if i := strings.Index(t, end); i >= 0 && strings.TrimSpace(t[i+len(end):]) != "" {
				context = append(context, part{Text: t[:i+len(end)]})
				prompt = append(prompt, part{Text: strings.TrimSpace(t[i+len(end):])})
				continue
			}
			context = append(context, p)
		case strings.HasPrefix(t, "<session_context>"):
			context = append(context, p)
		default:
			prompt = append(prompt, p)
		}
	}
	return context, prompt
}

// message indexes one message; a message written again replaces the
// blocks of its earlier line in the round.
func (b *builder) message(rs *roundState, l *cairn.Line, r *record) {
	rs.drop(r.ID)
	id := r.ID
	switch r.Type {
	case "user":
		ps := parts(r.Content)
		var responses []part
		for _, p := range ps {
			if p.FunctionResponse != nil {
				responses = append(responses, p)
			}
		}
		if len(responses) > 0 {
			for _, p := range responses {
				fr := p.FunctionResponse
				if b.answered[fr.ID] {
					continue
				}
				text, failed := responseText(fr.Response)
				rs.add(l, id, "user", cairn.ToolResult, text, "", func(bl *cairn.Block) {
					bl.ToolID, bl.ToolName, bl.IsError = fr.ID, fr.Name, failed
				})
			}
			return
		}
		if !b.startsRound(r) {
			rs.add(l, id, "user", cairn.MetaText, contentText(ps), "", nil)
			return
		}
		context, prompt := splitContext(ps)
		if len(context) > 0 {
			rs.add(l, id, "user", cairn.MetaText, contentText(context), "", nil)
		}
		rs.add(l, id, "user", cairn.UserText, contentText(prompt), "", nil)
	case "gemini":
		for _, t := range r.Thoughts {
			rs.add(l, id, "assistant", cairn.Thinking, t.text(), id, nil)
		}
		ps := parts(r.Content)
		for _, p := range ps {
			if p.Thought && p.Text != "" {
				rs.add(l, id, "assistant", cairn.Thinking, p.Text, id, nil)
			}
		}
		if t := contentText(ps); strings.TrimSpace(t) != "" {
			rs.add(l, id, "assistant", cairn.AssistantText, t, id, nil)
		}
		for _, p := range ps {
			if c := p.FunctionCall; c != nil {
				rs.addCall(l, id, c.ID, c.Name, c.Args)
			}
		}
		for _, c := range r.ToolCalls {
			rs.addCall(l, id, c.ID, c.Name, c.Args)
			if len(c.Result) > 0 && string(c.Result) != "null" {
				text, failed := resultText(c.Result)
				failed = failed || c.Status == "error"
				b.answered[c.ID] = true
				rs.add(l, id, "user", cairn.ToolResult, text, "", func(bl *cairn.Block) {
					bl.ToolID, bl.ToolName, bl.IsError, bl.AgentID = c.ID, c.Name, failed, c.AgentID
				})
			}
		}
		if r.Tokens != nil {
			rs.addUsage(id, r.Tokens.usage(), r.Model)
		}
	default: // info, error, warning, and kinds to come
		if t := contentText(parts(r.Content)); strings.TrimSpace(t) != "" {
			rs.add(l, id, "system", cairn.MetaText, t, "", nil)
		}
	}
}

func (rs *roundState) addCall(l *cairn.Line, owner, id, name string, args json.RawMessage) {
	var c bytes.Buffer
	input := "{}"
	if json.Compact(&c, args) == nil && c.String() != "null" {
		input = c.String()
	}
	rs.add(l, owner, "assistant", cairn.ToolUse, input, owner, func(bl *cairn.Block) { bl.ToolName, bl.ToolID = name, id })
	for _, t := range rs.Round.Tools {
		if t == name {
			return
		}
	}
	rs.Round.Tools = append(rs.Round.Tools, name)
}

// drop removes the blocks an earlier line of message id gave the round.
func (rs *roundState) drop(id string) {
	if id == "" {
		return
	}
	kept, owners := rs.Blocks[:0], rs.owner[:0]
	for i, bl := range rs.Blocks {
		if rs.owner[i] == id {
			continue
		}
		bl.Index = len(kept)
		kept, owners = append(kept, bl), append(owners, rs.owner[i])
	}
	rs.Blocks, rs.owner = kept, owners
}

func (rs *roundState) add(l *cairn.Line, owner, role string, kind cairn.BlockKind, content, msgID string, set func(*cairn.Block)) {
	rs.Add(l, role, kind, content, msgID, set)
	rs.owner = append(rs.owner, owner)
}

// addUsage records one reply's usage once (the last line of it counts).
func (rs *roundState) addUsage(id string, u cairn.Usage, model string) {
	rs.Usage.Set(rs.Round.Seq, id, model, u)
}

// Finish implements [cairn.RoundBuilder]. The open round is returned every
// time, with all its blocks, because lines still to come may extend it.
func (b *builder) Finish() ([]*cairn.Round, iter.Seq[[]*cairn.Block], []*cairn.MessageUsage) {
	// A document's message still open (a file cut short, or a batch's end)
	// is in the latest round until it closes.
	for _, p := range b.pending {
		p.RoundSeq = b.seq
	}
	states := b.completed
	if b.open != nil {
		states = append(states, b.open)
	}
	var rounds []*cairn.Round
	var blocks []*cairn.Block
	var msgs []*cairn.MessageUsage
	for _, rs := range states {
		r := *rs.Round
		r.Usage, msgs = rs.Usage.Sum(msgs)
		rounds = append(rounds, &r)
		for _, bl := range rs.Blocks {
			c := *bl
			blocks = append(blocks, &c)
		}
	}
	b.completed = nil
	return rounds, cairn.BlockSlices(blocks), msgs
}

// PreviewLen is the number of characters kept in a round's previews.
const PreviewLen = cairn.RoundPreviewLen

// Preview returns the first [PreviewLen] characters of s with whitespace
// collapsed, ending in "…" when cut.
func Preview(s string) string { return cairn.PreviewText(s, PreviewLen) }
