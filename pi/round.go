package pi

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
// Entries form a tree (id/parentId); pi appends each entry as a child of
// the current leaf, so a branch is a run of lines whose first entry's
// parent is not the line before it (/tree going back to an earlier entry,
// with or without a branch_summary). Such a line opens a round of its own:
// the rounds of each branch stay together, in the order pi wrote them, and
// the last round is the active path's (the leaf pi resumes from is the
// file's last entry). A prompt (a user message) opens a round, except the
// first prompt of a branch's round. A branch's round that a prompt does
// not open (a branch_summary, what /tree writes when it summarizes the
// branch left) begins with a block saying where it continues from; one
// that a prompt opens says so in the line's ParentUUID only, since an
// import that reads again from that round's first line (an append) cannot
// tell it from a prompt that follows the entry before it, and must build
// the same blocks. A round read from some of its lines (surgery keeps its
// prompt and latest steps) skips entries: a parent across the gap is no
// branch, since a branch always opens a round. Format 1 files have no
// ids: one chain in file order.
type builder struct {
	session *cairn.Session
	fromSeq int

	seq       int
	open      *roundState
	completed []*roundState

	lastID   string // the entry before's id, whose child the next entry is unless it branches ("": none, or format 1)
	lastNo   int    // its line: a round read from some of its lines (surgery keeps a round in part) has gaps, across which nothing branches
	lastTime time.Time
}

type roundState struct {
	cairn.RoundDraft
	prompted bool // the round holds its prompt
}

func newBuilder(s *cairn.Session, fromSeq int) *builder {
	return &builder{session: s, fromSeq: fromSeq, seq: max(fromSeq-1, 0)}
}

// Add implements [cairn.RoundBuilder].
func (b *builder) Add(l *cairn.Line) string {
	e, typ, status := parseLine(l.Raw)
	l.Status, l.Type = status, typ
	if e == nil {
		b.place(l)
		return cairn.LineProblem(status, typ)
	}
	if ts := parseTime(e.Timestamp); !ts.IsZero() {
		l.Timestamp = ts
	} else if l.Timestamp.IsZero() {
		l.Timestamp = b.lastTime
	}
	b.lastTime = l.Timestamp
	if typ == typeSession {
		b.place(l)
		return cairn.LineProblem(status, typ)
	}
	l.UUID = e.ID
	parent := ""
	if e.ParentID != nil {
		parent = *e.ParentID
		l.ParentUUID = parent
	}
	// A line branches when it names a parent other than the entry before
	// it; the first line of a replayed round opens that round whatever it
	// is (the entry before it is not replayed).
	branches := e.ID != "" && b.lastID != "" && parent != b.lastID && l.No == b.lastNo+1
	replayStart := b.open == nil && b.fromSeq > 0
	prompt := typ == typeMessage && status != cairn.LineUnknownType && isPrompt(e.Message)
	opens := branches || replayStart && !prompt
	if prompt && !opens {
		opens = b.open == nil || b.open.Round.Seq == 0 || b.open.prompted
	}
	b.lastID, b.lastNo = e.ID, l.No
	if opens {
		b.seq++
		if b.open != nil {
			b.completed = append(b.completed, b.open)
		}
		b.open = nil
	}
	rs := b.current(l)
	l.RoundSeq = rs.Round.Seq
	rd := rs.Round
	if !l.Timestamp.IsZero() {
		if rd.StartedAt.IsZero() || l.Timestamp.Before(rd.StartedAt) {
			rd.StartedAt = l.Timestamp
		}
		if l.Timestamp.After(rd.EndedAt) {
			rd.EndedAt = l.Timestamp
		}
	}
	if opens && !prompt {
		rs.Add(l, "system", cairn.MetaText, branchNote(parent), "", nil)
	}
	if status == cairn.LineUnknownType {
		return cairn.LineProblem(status, typ)
	}
	b.entry(rs, l, e, typ)
	return cairn.LineProblem(status, typ)
}

// branchNote is the first block of a branch's round.
func branchNote(parent string) string {
	if parent == "" {
		return "Branch: starts again from the beginning of the session"
	}
	return "Branch: continues from entry " + parent + ", not from the entry before it"
}

// isPrompt reports whether m is the user's prompt.
func isPrompt(m *message) bool {
	return m != nil && m.Role == "user" && strings.TrimSpace(text(parts(m.Content))) != ""
}

// place gives a line that holds no entry the current round.
func (b *builder) place(l *cairn.Line) {
	if l.Timestamp.IsZero() {
		l.Timestamp = b.lastTime
	}
	rs := b.current(l)
	l.RoundSeq = rs.Round.Seq
}

func (b *builder) current(l *cairn.Line) *roundState {
	if b.open == nil {
		b.open = &roundState{RoundDraft: cairn.RoundDraft{Round: &cairn.Round{SessionID: b.session.ID, Seq: b.seq, FirstLine: l.No, LastLine: l.No}}}
	}
	b.open.Round.LastLine = max(b.open.Round.LastLine, l.No)
	return b.open
}

// entry indexes one entry of a known type.
func (b *builder) entry(rs *roundState, l *cairn.Line, e *entry, typ string) {
	switch typ {
	case typeMessage:
		if e.Message != nil {
			b.message(rs, l, e.ID, e.Message)
		}
	case typeCompaction:
		rs.Add(l, "system", cairn.CompactionBlock, "Conversation compacted by the client ("+
			strconv.FormatInt(e.TokensBefore, 10)+" tokens before, kept from entry "+e.FirstKeptEntryID+")\n\n"+e.Summary, "", nil)
	case typeBranchSummary:
		rs.Add(l, "system", cairn.MetaText, "Branch summary (of the branch left at entry "+e.FromID+"):\n\n"+e.Summary, "", nil)
	case typeCustomMessage:
		// cairn's own context and notes (extension/cairn.ts) are stored
		// but are no block: a revive or cairn's compaction that carried
		// them would give the next context a stale copy.
		if t := text(parts(e.Content)); strings.TrimSpace(t) != "" && e.CustomType != ExtensionMessageType {
			rs.Add(l, "system", cairn.MetaText, t, "", nil)
		}
	case typeSessionInfo:
		if e.Name != "" {
			rs.Add(l, "system", cairn.MetaText, "Session named "+strconv.Quote(e.Name), "", nil)
		}
	case typeLabel:
		if e.Label != nil && *e.Label != "" {
			rs.Add(l, "system", cairn.MetaText, "Label "+strconv.Quote(*e.Label)+" on entry "+e.TargetID, "", nil)
		}
	}
}

// message indexes one AgentMessage.
func (b *builder) message(rs *roundState, l *cairn.Line, id string, m *message) {
	ps := parts(m.Content)
	switch m.Role {
	case "user":
		if t := text(ps); strings.TrimSpace(t) != "" {
			rs.Add(l, "user", cairn.UserText, t, "", nil)
			rs.prompted = true
		}
	case "assistant":
		msgID := id
		if msgID == "" {
			msgID = "line-" + strconv.Itoa(l.No)
		}
		for _, p := range ps {
			switch p.Type {
			case "thinking":
				if strings.TrimSpace(p.Thinking) != "" {
					rs.Add(l, "assistant", cairn.Thinking, p.Thinking, msgID, nil)
				}
			case "text":
				if strings.TrimSpace(p.Text) != "" {
					rs.Add(l, "assistant", cairn.AssistantText, p.Text, msgID, nil)
				}
			case "toolCall":
				rs.addCall(l, msgID, p.ID, p.Name, p.Arguments)
			}
		}
		if m.ErrorMessage != "" {
			rs.Add(l, "system", cairn.MetaText, "Error ("+m.StopReason+"): "+m.ErrorMessage, "", nil)
		}
		if m.Usage != nil {
			rs.Usage.Set(rs.Round.Seq, msgID, m.Model, m.Usage.usage())
		}
	case "toolResult":
		rs.Add(l, "user", cairn.ToolResult, text(ps), "", func(bl *cairn.Block) {
			bl.ToolID, bl.ToolName, bl.IsError = m.ToolCallID, m.ToolName, m.IsError
		})
	case "bashExecution":
		t := "$ " + m.Command + "\n" + m.Output
		if m.ExitCode != nil {
			t += "\n(exit " + strconv.Itoa(*m.ExitCode) + ")"
		}
		rs.Add(l, "user", cairn.MetaText, t, "", nil)
	case "compactionSummary":
		rs.Add(l, "system", cairn.CompactionBlock, "Conversation compacted by the client ("+
			strconv.FormatInt(m.TokensBefore, 10)+" tokens before)\n\n"+m.Summary, "", nil)
	case "branchSummary":
		rs.Add(l, "system", cairn.MetaText, "Branch summary:\n\n"+m.Summary, "", nil)
	default: // custom, hookMessage (format 2), and roles to come
		if t := text(ps); strings.TrimSpace(t) != "" {
			rs.Add(l, "system", cairn.MetaText, t, "", nil)
		}
	}
}

func (rs *roundState) addCall(l *cairn.Line, msgID, id, name string, args json.RawMessage) {
	var c bytes.Buffer
	input := "{}"
	if json.Compact(&c, args) == nil && c.String() != "null" {
		input = c.String()
	}
	rs.Add(l, "assistant", cairn.ToolUse, input, msgID, func(bl *cairn.Block) { bl.ToolName, bl.ToolID = name, id })
	rs.Round.AddTool(name)
}

// Finish implements [cairn.RoundBuilder]. The open round is returned every
// time, with all its blocks, because lines still to come may extend it.
func (b *builder) Finish() ([]*cairn.Round, iter.Seq[[]*cairn.Block], []*cairn.MessageUsage) {
	states := b.completed
	if b.open != nil {
		states = append(states, b.open)
	}
	drafts := make([]*cairn.RoundDraft, len(states))
	for i, rs := range states {
		d := rs.RoundDraft
		d.Blocks = make([]*cairn.Block, len(rs.Blocks))
		for j, bl := range rs.Blocks {
			c := *bl
			d.Blocks[j] = &c
		}
		drafts[i] = &d
	}
	b.completed = nil
	return cairn.FinishRounds(drafts)
}

// PreviewLen is the number of characters kept in a round's previews.
const PreviewLen = cairn.RoundPreviewLen

// Preview returns the first [PreviewLen] characters of s with whitespace
// collapsed, ending in "…" when cut.
func Preview(s string) string { return cairn.PreviewText(s, PreviewLen) }
