package codex

import (
	"encoding/json"
	"iter"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// PreviewLen is the number of characters kept in a round's previews.
const PreviewLen = cairn.RoundPreviewLen

// A builder turns rollout lines into rounds in file order. It implements
// [cairn.RoundBuilder].
type builder struct {
	session *cairn.Session

	seq       int
	open      *roundState
	completed []*roundState

	// turn names the model turn (a step) the next assistant item belongs
	// to; "" after a tool output or a user message, so the next assistant
	// item opens a new one.
	turn string
	// records reports that the file has token_usage_record lines, which
	// make its token_count events redundant.
	records bool
	// lastTime is the time of the last line that had one.
	lastTime time.Time
}

type roundState struct {
	cairn.RoundDraft
	tools map[string]string // call_id → tool name
}

func newBuilder(s *cairn.Session, fromSeq int) *builder {
	return &builder{session: s, seq: max(fromSeq-1, 0)}
}

// Add implements [cairn.RoundBuilder].
func (b *builder) Add(l *cairn.Line) string {
	p, status := parseLine(l.Raw)
	l.Status = status
	if p == nil {
		l.RoundSeq = b.current(l).Round.Seq
		return cairn.LineProblem(status, "")
	}
	// First-era items carry no time: they take the last time seen (the
	// header's at first), or the one a replayed line was stored with.
	l.Type = p.kind
	switch {
	case !p.ts.IsZero():
		l.Timestamp = p.ts
	case l.Timestamp.IsZero():
		l.Timestamp = b.lastTime
	}
	b.lastTime = l.Timestamp
	it := p.item
	if p.kind == "response_item" {
		l.UUID = it.ID
	}
	b.noteSession(p)
	if b.startsRound(p) {
		b.seq++
		if b.open != nil {
			b.completed = append(b.completed, b.open)
		}
		b.open = nil
	}
	rs := b.current(l)
	l.RoundSeq = rs.Round.Seq
	r := rs.Round
	r.LastLine = l.No
	if !l.Timestamp.IsZero() {
		if r.StartedAt.IsZero() || l.Timestamp.Before(r.StartedAt) {
			r.StartedAt = l.Timestamp
		}
		if l.Timestamp.After(r.EndedAt) {
			r.EndedAt = l.Timestamp
		}
	}
	if status == cairn.LineOK || status == cairn.LineInvalidUTF8 {
		b.addBlocks(rs, l, p)
	}
	return cairn.LineProblem(status, p.kind)
}

func (b *builder) current(l *cairn.Line) *roundState {
	if b.open == nil {
		b.open = &roundState{
			RoundDraft: cairn.RoundDraft{Round: &cairn.Round{SessionID: b.session.ID, Seq: b.seq, FirstLine: l.No, LastLine: l.No}},
			tools:      map[string]string{},
		}
	}
	return b.open
}

func (b *builder) noteSession(p *parsed) {
	s, it := b.session, p.item
	switch p.kind {
	case "session_meta":
		if s.Project == "" {
			s.Project = it.Cwd
		}
		if it.Version != "" {
			s.Version = it.Version
		}
		if s.GitBranch == "" && it.Git != nil {
			s.GitBranch = it.Git.Branch
		}
	case "turn_context":
		if s.Project == "" {
			s.Project = it.Cwd
		}
	}
}

// startsRound reports whether p is a real user message: a user message
// item holding the user's words or an image, not context Codex injected.
func (b *builder) startsRound(p *parsed) bool {
	if p.kind != "response_item" || p.item.Type != "message" || p.item.Role != "user" {
		return false
	}
	texts, image := p.item.texts()
	if image {
		return true
	}
	for _, t := range texts {
		if strings.TrimSpace(t) != "" && !injected(t) {
			return true
		}
	}
	return false
}

// assistantItem reports whether items of type t are produced by a model
// turn.
func assistantItem(t string) bool {
	switch t {
	case "reasoning", "function_call", "custom_tool_call", "local_shell_call",
		"web_search_call", "tool_search_call", "image_generation_call":
		return true
	}
	return false
}

func (b *builder) addBlocks(rs *roundState, l *cairn.Line, p *parsed) {
	it := p.item
	switch p.kind {
	case "compacted":
		b.turn = ""
		if it.Message != "" {
			rs.Add(l, "system", cairn.MetaText, it.Message, "", nil)
		}
		return
	case "token_usage_record":
		b.records = true
		if it.Usage != nil {
			rs.addUsage(it.ResponseID, it.Usage, it.Model)
		}
		return
	case "event_msg":
		if it.Type == "token_count" && !b.records && it.Info != nil && it.Info.Last != nil {
			rs.addUsage("line-"+strconv.Itoa(l.No), it.Info.Last, "")
		}
		return
	case "response_item":
	default:
		return
	}
	if it.Type == "message" && it.Role == "assistant" || assistantItem(it.Type) {
		if b.turn == "" {
			b.turn = "turn-" + strconv.Itoa(l.No)
		}
	}
	switch it.Type {
	case "message":
		texts, image := it.texts()
		text := strings.Join(texts, "\n\n")
		if image {
			text = strings.TrimSpace(text + "\n[image]")
		}
		switch it.Role {
		case "assistant":
			rs.Add(l, "assistant", cairn.AssistantText, text, b.turn, nil)
		case "user":
			b.turn = ""
			kind := cairn.UserText
			if !b.startsRound(p) {
				kind = cairn.MetaText
			}
			rs.Add(l, "user", kind, text, "", nil)
		default: // developer, system
			rs.Add(l, "system", cairn.MetaText, text, "", nil)
		}
	case "reasoning":
		rs.Add(l, "assistant", cairn.Thinking, it.reasoning(), b.turn, nil)
	case "function_call", "custom_tool_call", "local_shell_call", "web_search_call", "tool_search_call", "image_generation_call":
		name, input := it.Name, it.arguments()
		switch it.Type {
		case "custom_tool_call":
			input = it.Input
		case "local_shell_call", "web_search_call", "tool_search_call", "image_generation_call":
			name, input = strings.TrimSuffix(it.Type, "_call"), string(it.Action)
		}
		id := it.CallID
		if id == "" {
			id = it.ID
		}
		rs.tools[id] = name
		rs.Add(l, "assistant", cairn.ToolUse, input, b.turn, func(bl *cairn.Block) { bl.ToolName, bl.ToolID = name, id })
		rs.Round.AddTool(name)
	case "function_call_output", "custom_tool_call_output", "tool_search_output":
		b.turn = ""
		text, failed := outputText(it.Output)
		if it.Type == "tool_search_output" && text == "" {
			text = string(it.Content)
		}
		rs.Add(l, "user", cairn.ToolResult, text, "", func(bl *cairn.Block) {
			bl.ToolID, bl.ToolName, bl.IsError = it.CallID, rs.tools[it.CallID], failed
			if bl.ToolName == "spawn_agent" {
				bl.AgentID = spawnedAgent(text)
			}
		})
	}
}

// addUsage records one response's usage once.
func (rs *roundState) addUsage(id string, u *tokenUsage, model string) {
	if id == "" {
		return
	}
	rs.Usage.Set(rs.Round.Seq, id, model, u.usage())
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

// spawnedAgent returns the thread a spawn_agent call's output names
// ({"agent_id": …, "nickname": …}, multi_agent_v1): the sub-agent's own
// rollout, whose session_meta names this thread its parent.
func spawnedAgent(output string) string {
	var out struct {
		AgentID string `json:"agent_id"`
	}
	if json.Unmarshal([]byte(output), &out) != nil || !uuid.Valid(out.AgentID) {
		return ""
	}
	return out.AgentID
}
