package claudecode

import (
	"iter"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json/jsontext"
)

// PreviewLen is the number of characters kept in a round's previews.
const PreviewLen = cairn.RoundPreviewLen

// A builder turns lines into rounds in file order. It implements
// [cairn.RoundBuilder].
type builder struct {
	session  *cairn.Session
	subagent bool // every line is a sidechain: its first prompt starts a round

	seq       int
	open      *roundState // the round being built; nil before the first line
	completed []*roundState

	boundary string       // the uuid of the last compact_boundary line
	context  int64        // the context of the last main-chain reply: what a compaction then compacts
	summary  *cairn.Block // a boundaryless compaction's block, until its /compact command or a reply
	// summaryTokens is the context summary compacted.
	summaryTokens int64
}

type roundState struct {
	subagent bool
	round    *cairn.Round
	blocks   []*cairn.Block // the blocks held, in order; wide lines' blocks sit between them
	wide     []*wideLine    // lines whose blocks are decoded again as they are read
	count    int            // the round's blocks, held or not: the next one's Index
	usage    cairn.RoundUsage
	tools    map[string]string
	answer   string // the last assistant text, the round's AgentPreview once cut by Finish
}

func newBuilder(s *cairn.Session, fromSeq int) *builder {
	return &builder{session: s, subagent: s.IsSubagent(), seq: max(fromSeq-1, 0)}
}

// Add implements [cairn.RoundBuilder].
func (b *builder) Add(l *cairn.Line) string {
	e, status := parseLine(l.Raw)
	l.Status = status
	if e == nil {
		l.RoundSeq = b.current(l).round.Seq
		return problem(status, "")
	}
	l.Type, l.UUID = e.Type, e.UUID
	if e.ParentUUID != nil {
		l.ParentUUID = *e.ParentUUID
	}
	l.Timestamp = e.time()
	if l.Timestamp.IsZero() && e.Type == "file-history-snapshot" {
		l.Timestamp = snapshotTime(l.Raw)
	}
	b.noteSession(e)

	starts := b.startsRound(e)
	if starts {
		b.seq++
		if b.open != nil {
			b.completed = append(b.completed, b.open)
		}
		b.open = nil
	}
	rs := b.current(l)
	l.RoundSeq = rs.round.Seq
	r := rs.round
	r.LastLine = l.No
	if !l.Timestamp.IsZero() {
		if r.StartedAt.IsZero() || l.Timestamp.Before(r.StartedAt) {
			r.StartedAt = l.Timestamp
		}
		if l.Timestamp.After(r.EndedAt) {
			r.EndedAt = l.Timestamp
		}
	}
	// Only conversation lines hold blocks; api-request* lines also carry a
	// "message", but it is a copy of what was sent, not a new turn.
	if (status == cairn.LineOK || status == cairn.LineInvalidUTF8) && conversational(e.Type) {
		b.addBlocks(rs, l, e, starts)
	}
	return problem(status, e.Type)
}

func problem(status cairn.LineStatus, typ string) string {
	switch status {
	case cairn.LineInvalidJSON:
		return "invalid JSON (kept raw)"
	case cairn.LineInvalidUTF8:
		return "invalid UTF-8 (kept raw, indexed with replacement characters)"
	case cairn.LineUnknownType:
		return "unknown line type " + quote(typ) + " (kept raw)"
	}
	return ""
}

func quote(s string) string { return "\"" + s + "\"" }

func (b *builder) current(l *cairn.Line) *roundState {
	if b.open == nil {
		b.open = &roundState{
			subagent: b.subagent,
			round:    &cairn.Round{SessionID: b.session.ID, Seq: b.seq, FirstLine: l.No, LastLine: l.No},
			tools:    map[string]string{},
		}
	}
	return b.open
}

// noteSession fills session metadata the identifying lines did not have.
func (b *builder) noteSession(e *entry) {
	s := b.session
	switch {
	case e.Type == "custom-title" && e.CustomTitle != "":
		s.Title = e.CustomTitle
	case e.Type == "ai-title" && e.AITitle != "" && s.Title == "":
		s.Title = e.AITitle
	case e.Type == "summary" && e.Summary != "" && s.Title == "":
		s.Title = e.Summary
	}
	if s.Project == "" && e.Cwd != "" {
		s.Project = e.Cwd
	}
	if e.Version != "" {
		s.Version = e.Version
	}
	if s.GitBranch == "" && e.GitBranch != "" {
		s.GitBranch = e.GitBranch
	}
}

// startsRound reports whether e is a real user message: typed by the user,
// not injected by the client, not a tool result, not an inline subagent's.
func (b *builder) startsRound(e *entry) bool {
	if e.Type != "user" || e.Message == nil || e.IsMeta || e.IsCompactSummary {
		return false
	}
	if e.IsSidechain && !b.subagent {
		return false
	}
	if s, ok := e.Message.text(); ok {
		return isPrompt(s)
	}
	// Only a block's type and text are read: a tool result's content is
	// skipped, not copied.
	for _, c := range elements[promptPart](e.Message.Content) {
		if c.Type == "text" && isPrompt(c.Text) {
			return true
		}
		if c.Type == "image" {
			return true
		}
	}
	return false
}

// promptPart is what startsRound reads of a user line's content block.
type promptPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// conversational reports whether lines of type t carry the conversation
// a round is made of.
func conversational(t string) bool {
	return t == "user" || t == "assistant" || t == "system"
}

// injectedPrefixes open text the client wrote into a user line.
var injectedPrefixes = []string{
	"<local-command-", "<system-reminder>", "<user-prompt-submit-hook>", "<task-notification>",
	"[Request interrupted by user", "Caveat: The messages below were generated",
}

var (
	commandName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<command-name>/?([^<]*)</command-name>`) })
	commandArgs = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`) })
)

// commandText renders a slash command line as the user typed it.
func commandText(s string) string {
	m := commandName().FindStringSubmatch(s)
	if m == nil || !strings.HasPrefix(strings.TrimSpace(s), "<command-") {
		return s
	}
	text := "/" + strings.TrimPrefix(strings.TrimSpace(m[1]), "/")
	if a := commandArgs().FindStringSubmatch(s); a != nil && strings.TrimSpace(a[1]) != "" {
		text += " " + strings.TrimSpace(a[1])
	}
	return text
}

// localCommand reports whether name is a slash command the client runs
// itself: it does not ask the model anything, so it stays inside the
// current round.
func localCommand(name string) bool {
	switch name {
	case "compact", "clear", "model", "mcp", "cost", "help",
		"config", "status", "memory", "resume", "login", "logout",
		"exit", "context", "permissions", "agents", "hooks", "ide",
		"doctor", "vim", "theme", "export", "add-dir", "bashes",
		"todos", "usage", "statusline", "rewind", "release-notes",
		"output-style", "upgrade", "terminal-setup", "privacy-settings",
		"feedback", "bug", "plugin", "stats", "tasks", "rename":
		return true
	}
	return false
}

func isPrompt(s string) bool {
	t := strings.TrimLeftFunc(s, unicode.IsSpace)
	if t == "" {
		return false
	}
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return false
		}
	}
	if strings.HasPrefix(t, "<command-") {
		m := commandName().FindStringSubmatch(t)
		return m != nil && !localCommand(strings.TrimSpace(m[1]))
	}
	return true
}

// addBlocks adds e's blocks to rs; starts says whether e starts a round.
func (b *builder) addBlocks(rs *roundState, l *cairn.Line, e *entry, starts bool) {
	if e.Message == nil {
		if e.Type == "system" && e.Subtype == "compact_boundary" {
			b.boundary = e.UUID
			rs.add(rs.source(l, e, "system", cairn.MetaText), cairn.CompactionBlock, compactionText(e))
		} else if e.Type == "system" && len(e.Content) > 0 && e.Content[0] == '"' {
			rs.add(rs.source(l, e, "system", cairn.MetaText), cairn.MetaText, resultText(e.Content))
		}
		return
	}
	role := e.Message.Role
	if role == "" {
		role = e.Type
	}
	if e.Type == "assistant" && e.Message.ID != "" {
		rs.addUsage(e.Message)
	}
	b.noteCompaction(rs, l, e)
	userKind := cairn.UserText
	if e.Type == "user" && !starts {
		userKind = cairn.MetaText
	}
	src := rs.source(l, e, role, userKind)
	if s, ok := e.Message.text(); ok {
		kind := cairn.AssistantText
		if role == "user" {
			kind = userKind
		}
		rs.add(src, kind, s)
		return
	}
	if starts {
		src.attachMedia(e.Message.Content)
	}
	rs.addParts(src, e.Message.Content)
}

// attachMedia readies src to name a prompt's images and documents beside
// its words, in the block of its first text ("What is wrong here?\n[image:
// image/png, 34.2 KB]"), rather than as blocks of their own: a prompt is
// then read, previewed and listed with its words and what came with them,
// never as a bare "[image]" before them. A prompt of images alone keeps a
// block for each, named.
func (s *lineSource) attachMedia(content jsontext.Value) {
	s.words = -1
	var names []string
	for i, c := range elements[mediaPart](content) {
		switch {
		case c.Type == "image" || c.Type == "document":
			names = append(names, mediaName(&contentBlock{Type: c.Type, Source: c.Source}))
		case c.Type == "text" && s.words < 0 && isPrompt(c.Text):
			s.words = i
		}
	}
	if s.words >= 0 {
		s.media = names
	}
}

// mediaPart is what attachMedia reads of a prompt's content part.
type mediaPart struct {
	Type   string       `json:"type"`
	Text   string       `json:"text"`
	Source *mediaSource `json:"source"`
}

// noteCompaction adds the compaction block of a compaction that has no
// compact_boundary line: releases before the boundary (1.0.51 and 1.0.80
// write none; 1.0.128 does) mark one only by the summary that starts the
// conversation again, an isCompactSummary user line with no parent. The
// block stands before the summary, as a boundary would, with the size of
// the context compacted (the last reply's, what the client measures);
// "manual" once the /compact command the client writes after the summary
// is read, "auto" when a reply comes first.
func (b *builder) noteCompaction(rs *roundState, l *cairn.Line, e *entry) {
	switch {
	case e.IsSidechain && !b.subagent:
	case e.Type == "assistant":
		b.labelCompaction("auto")
		if u := e.Message.Usage; u != nil {
			b.context = u.InputTokens + u.CacheReadInputTokens + u.CacheCreationInputTokens + u.OutputTokens
		}
	case e.Type != "user":
	case e.IsCompactSummary && (e.ParentUUID == nil || *e.ParentUUID != b.boundary || b.boundary == ""):
		c := &entry{}
		if b.context > 0 {
			c.CompactMetadata = &compactMetadata{PreTokens: b.context}
		}
		rs.add(rs.source(l, e, "system", cairn.MetaText), cairn.CompactionBlock, compactionText(c))
		b.summary, b.summaryTokens = rs.blocks[len(rs.blocks)-1], b.context
	case b.summary != nil:
		if s, ok := e.Message.text(); ok && strings.HasPrefix(commandText(s), "/compact") {
			b.labelCompaction("manual")
		}
	}
}

// labelCompaction gives the boundaryless compaction being read its trigger.
func (b *builder) labelCompaction(trigger string) {
	if b.summary == nil {
		return
	}
	c := &entry{CompactMetadata: &compactMetadata{Trigger: trigger, PreTokens: b.summaryTokens}}
	b.summary.Content = compactionText(c)
	b.summary = nil
}

// A lineSource is what the blocks of one line share: everything a block
// holds but its content.
type lineSource struct {
	sessionID string
	seq       int
	lineNo    int
	timestamp time.Time
	role      string
	userKind  cairn.BlockKind // the kind of the line's user text, prompt or not
	sidechain bool
	messageID string
	agentID   string // the subagent the line's tool results report on
	// media names the images and documents of a prompt, given with the
	// text of its content part words rather than as blocks (attachMedia).
	media []string
	words int
}

func (rs *roundState) source(l *cairn.Line, e *entry, role string, userKind cairn.BlockKind) *lineSource {
	src := &lineSource{sessionID: rs.round.SessionID, seq: rs.round.Seq, lineNo: l.No, timestamp: l.Timestamp,
		role: role, userKind: userKind, sidechain: e.IsSidechain && !rs.subagent, agentID: e.ToolUseResult.AgentID}
	if e.Message != nil {
		src.messageID = e.Message.ID
	}
	return src
}

// fill makes bl the line's block at index.
func (s *lineSource) fill(bl *cairn.Block, index int, kind cairn.BlockKind, content string) {
	*bl = cairn.Block{SessionID: s.sessionID, RoundSeq: s.seq, LineNo: s.lineNo, Index: index, Role: s.role, Kind: kind,
		Timestamp: s.timestamp, Content: content, Sidechain: s.sidechain, MessageID: s.messageID}
}

// part makes bl the block of content part c, the line's part at, as the
// round's block at index, and reports false if c makes none. toolName
// names the tool a tool result answers.
func (s *lineSource) part(bl *cairn.Block, index, at int, c *contentBlock, toolName func(id string) string) bool {
	switch c.Type {
	case "text":
		kind := cairn.AssistantText
		if s.role == "user" {
			kind = s.userKind
			if !isPrompt(c.Text) {
				kind = cairn.MetaText
			}
		}
		text := c.Text
		if len(s.media) > 0 && at == s.words {
			text = strings.TrimRight(text, "\n") + "\n" + strings.Join(s.media, "\n")
		}
		s.fill(bl, index, kind, text)
	case "thinking", "redacted_thinking":
		s.fill(bl, index, cairn.Thinking, c.Thinking)
	case "tool_use", "server_tool_use":
		s.fill(bl, index, cairn.ToolUse, string(c.Input))
		bl.ToolName, bl.ToolID = c.Name, c.ID
	case "tool_result":
		s.fill(bl, index, cairn.ToolResult, resultText(c.Content))
		bl.ToolID, bl.ToolName, bl.IsError, bl.AgentID = c.ToolUseID, toolName(c.ToolUseID), c.IsError, s.agentID
	case "image", "document":
		if len(s.media) > 0 {
			return false
		}
		s.fill(bl, index, s.userKind, mediaName(c))
	default:
		return false
	}
	return true
}

// compactionText is a compact_boundary line's block: its words, then what
// triggered the compaction and the context's size before it, when known.
func compactionText(e *entry) string {
	text := "Conversation compacted"
	if len(e.Content) > 0 && e.Content[0] == '"' {
		if s := resultText(e.Content); s != "" {
			text = s
		}
	}
	if m := e.CompactMetadata; m != nil {
		var fig []string
		if m.Trigger != "" {
			fig = append(fig, m.Trigger)
		}
		if m.PreTokens > 0 {
			fig = append(fig, strconv.FormatInt(m.PreTokens, 10)+" tokens")
		}
		if len(fig) > 0 {
			text += " (" + strings.Join(fig, ", ") + ")"
		}
	}
	return text
}

// add adds one block of the line src describes.
func (rs *roundState) add(src *lineSource, kind cairn.BlockKind, content string) {
	bl := &cairn.Block{}
	src.fill(bl, rs.count, kind, content)
	rs.note(bl)
	rs.blocks = append(rs.blocks, bl)
	rs.count++
}

// note records what a new block tells of its round: the tools it calls,
// its previews.
func (rs *roundState) note(bl *cairn.Block) {
	r := rs.round
	switch bl.Kind {
	case cairn.ToolUse:
		rs.tools[bl.ToolID] = bl.ToolName
		rs.round.AddTool(bl.ToolName)
	case cairn.UserText:
		if r.UserPreview == "" && !bl.Sidechain {
			r.UserPreview = Preview(commandText(bl.Content))
		}
	case cairn.AssistantText:
		if !bl.Sidechain && strings.TrimSpace(bl.Content) != "" {
			rs.answer = bl.Content
		}
	}
}

// toolName names the tool of a call of the round, "" if unknown.
func (rs *roundState) toolName(id string) string { return rs.tools[id] }

// addUsage records a message's usage once: every line of a message repeats
// it, and the last one seen is the most complete.
func (rs *roundState) addUsage(m *message) {
	if m.Usage == nil {
		return
	}
	u := cairn.Usage{Input: m.Usage.InputTokens, Output: m.Usage.OutputTokens,
		CacheRead: m.Usage.CacheReadInputTokens, CacheCreation: m.Usage.CacheCreationInputTokens}
	rs.usage.Set(rs.round.Seq, m.ID, m.Model, u)
}

// Finish implements [cairn.RoundBuilder]. The open round is returned every
// time, with all its blocks, because lines still to come may extend it.
func (b *builder) Finish() ([]*cairn.Round, iter.Seq[[]*cairn.Block], []*cairn.MessageUsage) {
	states := b.completed
	if b.open != nil {
		states = append(states, b.open)
	}
	var rounds []*cairn.Round
	var msgs []*cairn.MessageUsage
	blocks := make([]roundBlocks, 0, len(states))
	for _, rs := range states {
		r := *rs.round
		if rs.answer != "" {
			r.AgentPreview = Preview(rs.answer)
		}
		r.Usage, msgs = rs.usage.Sum(msgs)
		rounds = append(rounds, &r)
		blocks = append(blocks, roundBlocks{held: slices.Clip(rs.blocks), wide: slices.Clip(rs.wide)})
	}
	b.completed = nil
	return rounds, allBlocks(blocks), msgs
}

// Preview returns the first [PreviewLen] characters of s with whitespace
// collapsed, ending in "…" when cut.
func Preview(s string) string { return cairn.PreviewText(s, PreviewLen) }
