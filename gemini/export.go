package gemini

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/jsonw"
	"github.com/cairn-dev/cairn/internal/readrule"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// An Exporter writes a [cairn.Materialization] as a Gemini CLI session that
// the real client resumes with `gemini --resume <SessionID>`:
//
//   - the metadata record naming the new session and its project's hash;
//   - the first user message carries Summary (the index of compressed
//     rounds and where every full round came from) as its first part, the
//     round's prompt as its second, so user and model turns alternate;
//   - then every full round from its blocks: prompts as user messages, each
//     model turn (a step) as one gemini message with its thoughts, text and
//     tool calls, each call carrying its result as the client records it
//     (a call the round holds no result for is left out, as is a result
//     without its call); a round of another harness crosses as
//     [Exporter.Crossed] counts;
//   - it ends on a gemini message: a last prompt left unanswered is not
//     kept.
//
// Lines returns JSONL, which 0.4x and later releases write and read;
// with Document set, the one .json document older releases read.
type Exporter struct {
	SessionID string    // the new session's uuid
	Project   string    // the folder the client resumes in: its hash names the session's project
	Summary   string    // the text of the summary
	Now       time.Time // stamps the records; default time.Now()
	Document  bool      // write the older releases' .json document

	// Blocks returns the blocks of a full round at the materialization's
	// fidelity; a Gemini round's are read back from its lines.
	Blocks func(p *cairn.Piece) ([]*cairn.Block, error)

	// Crossed counts, after Lines, what rounds of other harnesses lost.
	Crossed Crossing
}

// NewSessionID returns a fresh random uuid (version 4), as the client names
// sessions.
func NewSessionID() string { return uuid.New() }

// ProjectHash is the SHA-256 of a project's folder, as the client records
// it in every session (and named the project's folder under tmp/ before
// projects.json).
func ProjectHash(project string) string {
	h := sha256.Sum256([]byte(project))
	return hex.EncodeToString(h[:])
}

// ChatsDir returns the folder the client looks in for a project's
// sessions: tmp/<short name>/chats, the short name projects.json gives the
// project, else tmp/<ProjectHash>/chats, which the client moves to its
// short name the first time it runs there.
func ChatsDir(geminiHome, project string) string {
	var reg struct {
		Projects map[string]string `json:"projects"`
	}
	if data, err := readrule.ReadFile(filepath.Join(geminiHome, "projects.json"), []string{geminiHome}, 16<<20); err == nil && json.Unmarshal(data, &reg) == nil {
		if slug := reg.Projects[projectKey(project)]; slug != "" && !strings.ContainsAny(slug, `/\`) && slug != ".." {
			return filepath.Join(TmpDir(geminiHome), slug, "chats")
		}
	}
	return filepath.Join(TmpDir(geminiHome), ProjectHash(project), "chats")
}

// FileName returns the session's file name: session-<time>-<tag>.jsonl,
// or .json for a document, tag being eight hex digits of the id that are
// not its first eight ([FileTag]).
func (x *Exporter) FileName(now time.Time) string {
	ext := ".jsonl"
	if x.Document {
		ext = ".json"
	}
	return "session-" + now.UTC().Format("2006-01-02T15-04") + "-" + FileTag(x.SessionID) + ext
}

// FileTag is the eight characters that end the name of a session file
// cairn writes for id: its last eight hex digits, unless those are its
// first eight (then the eight before them). The client names its own
// files by an id's first eight, and finds a session to resume by the id
// inside the file, not its name; but 0.61, resuming a session in a later
// minute than its file's name says, first writes a stub of metadata named
// session-<now>-<first eight>, and its cleanup at the next start deletes
// every file whose name ends as a stub's does, with the work continued in
// it. A file named apart from the stub outlives it
// (TestResumeSurvivesCleanup).
func FileTag(id string) string {
	h := strings.ReplaceAll(id, "-", "")
	if len(h) < 16 {
		return id[:min(8, len(id))]
	}
	tag := h[len(h)-8:]
	if tag == h[:8] {
		tag = h[len(h)-16 : len(h)-8]
	}
	return tag
}

// TimeFormat is how the client stamps its records.
const TimeFormat = "2006-01-02T15:04:05.000Z"

// A message is one record on its way out, in the client's field order.
type message struct {
	ID        string       `json:"id"`
	Timestamp string       `json:"timestamp"`
	Type      string       `json:"type"`
	Content   any          `json:"content"`
	Thoughts  []outThought `json:"thoughts,omitempty"`
	Model     string       `json:"model,omitempty"`
	ToolCalls []*outCall   `json:"toolCalls,omitempty"`
	step      string       // the step it holds
	answered  bool         // a call of it has its result: the turn is over
}

type outThought struct {
	Subject     string `json:"subject"`
	Description string `json:"description"`
	Timestamp   string `json:"timestamp"`
}

type outCall struct {
	ID        string         `json:"id"`
	Name      string         `json:"name"`
	Args      map[string]any `json:"args"`
	Result    []any          `json:"result,omitempty"`
	Status    string         `json:"status"`
	Timestamp string         `json:"timestamp"`
}

type textPart struct {
	Text string `json:"text"`
}

// Lines returns the session's lines, each with its terminator (a
// document's one line per line of its indented JSON, the last without).
// Returns EINVALID if nothing of m can be resumed: no full round with a
// model turn.
func (x *Exporter) Lines(m *cairn.Materialization) ([][]byte, error) {
	if !uuid.Valid(x.SessionID) {
		return nil, cairn.Errorf(cairn.EINVALID, "Export needs a session uuid, got %q.", x.SessionID)
	}
	if x.Blocks == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "A Gemini CLI export needs the rounds' blocks.")
	}
	now := x.Now
	if now.IsZero() {
		now = time.Now()
	}
	x.Crossed = Crossing{}
	var msgs []*message
	for _, p := range m.FullPieces() {
		blocks, err := x.Blocks(p)
		if err != nil {
			return nil, err
		}
		src := m.Source(p.Round.SessionID)
		native := src == nil || src.Agent == cairn.AgentGemini
		msgs = append(msgs, x.round(blocks, native, now)...)
	}
	for len(msgs) > 0 && msgs[len(msgs)-1].Type != "gemini" {
		msgs = msgs[:len(msgs)-1]
	}
	if len(msgs) == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to resume: no round in full has a model turn.")
	}
	summary := textPart{x.Summary}
	if first := msgs[0]; first.Type == "user" {
		first.Content = append([]any{summary}, first.Content.([]any)...)
	} else {
		msgs = append([]*message{{ID: newID(), Timestamp: first.Timestamp, Type: "user", Content: []any{summary}}}, msgs...)
	}
	project := x.Project
	if project == "" && len(m.Sources) > 0 {
		project = m.Sources[0].Project
	}
	ts := now.UTC().Format(TimeFormat)
	meta := []any{"sessionId", x.SessionID, "projectHash", ProjectHash(project), "startTime", ts, "lastUpdated", ts}
	if x.Document {
		return x.document(meta, msgs)
	}
	meta = append(meta, "kind", "main")
	lines := [][]byte{append(jsonw.Ordered(meta...), '\n')}
	for _, msg := range msgs {
		lines = append(lines, append(jsonw.Marshal(msg), '\n'))
	}
	return lines, nil
}

// document returns the older releases' .json document, indented as
// JSON.stringify(record, null, 2) writes it, cut into lines.
func (x *Exporter) document(meta []any, msgs []*message) ([][]byte, error) {
	doc := append(jsonw.Ordered(meta...)[:len(jsonw.Ordered(meta...))-1], []byte(`,"messages":`)...)
	doc = append(append(doc, jsonw.Marshal(msgs)...), '}')
	var b bytes.Buffer
	if err := json.Indent(&b, doc, "", "  "); err != nil {
		return nil, err
	}
	return bytes.SplitAfter(b.Bytes(), []byte("\n")), nil
}

// round turns one round's blocks into messages.
func (x *Exporter) round(blocks []*cairn.Block, native bool, now time.Time) []*message {
	var out []*message
	var cur *message
	calls := map[string]*outCall{}
	asText := map[string]string{} // a call rendered as text: its summary
	model := func(b *cairn.Block) *message {
		if cur == nil || cur.step != b.MessageID || cur.answered {
			cur = &message{ID: newID(), Timestamp: stampOf(b, now), Type: "gemini", Content: "", step: b.MessageID, Model: "cairn-export"}
			out = append(out, cur)
		}
		return cur
	}
	say := func(b *cairn.Block, text string) {
		g := model(b)
		if s, _ := g.Content.(string); s != "" {
			text = s + "\n\n" + text
		}
		g.Content = text
	}
	for _, b := range blocks {
		if b.Sidechain {
			continue
		}
		switch b.Kind {
		case cairn.UserText:
			cur = nil
			out = append(out, &message{ID: newID(), Timestamp: stampOf(b, now), Type: "user", Content: []any{textPart{b.Content}}})
		case cairn.AssistantText:
			if strings.TrimSpace(b.Content) != "" {
				say(b, b.Content)
			}
		case cairn.Thinking:
			switch {
			case b.Detail != "":
				say(b, b.Content)
			case !native:
				x.Crossed.ThinkingDropped++
			default:
				g := model(b)
				g.Thoughts = append(g.Thoughts, outThought{Description: b.Content, Timestamp: stampOf(b, now)})
			}
		case cairn.ToolUse:
			if b.Detail != "" {
				say(b, b.Content)
				continue
			}
			name, args, ok := b.ToolName, map[string]any(nil), native
			if native {
				if json.Unmarshal([]byte(b.Content), &args) != nil {
					ok = false
				}
			} else {
				name, args, ok = toGeminiCall(b.ToolName, b.Content)
			}
			if !ok {
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
			c := &outCall{ID: callID(name, b.ToolID), Name: name, Args: args, Status: "success", Timestamp: stampOf(b, now)}
			calls[b.ToolID] = c
			g := model(b)
			g.ToolCalls = append(g.ToolCalls, c)
		case cairn.ToolResult:
			if s, ok := asText[b.ToolID]; ok {
				delete(asText, b.ToolID)
				say(b, s+" "+cairn.ToolResultSummary(b.Content, b.IsError))
				continue
			}
			c := calls[b.ToolID]
			if c == nil || c.Result != nil {
				continue
			}
			resp := map[string]any{"output": b.Content}
			if b.IsError {
				resp = map[string]any{"error": b.Content}
				c.Status = "error"
			}
			c.Result = []any{map[string]any{"functionResponse": map[string]any{"id": c.ID, "name": c.Name, "response": resp}}}
			for _, g := range out {
				for _, gc := range g.ToolCalls {
					if gc == c {
						g.answered = true
					}
				}
			}
		}
	}
	// A call without its result is not the client's: leave it out, and a
	// model turn left empty with it.
	var kept []*message
	for _, g := range out {
		if g.Type == "gemini" {
			var answered []*outCall
			for _, c := range g.ToolCalls {
				if c.Result != nil {
					answered = append(answered, c)
				}
			}
			g.ToolCalls = answered
			if s, _ := g.Content.(string); s == "" && len(g.ToolCalls) == 0 && len(g.Thoughts) == 0 {
				continue
			}
		}
		kept = append(kept, g)
	}
	return kept
}

// callID is a call's id as the client makes them (<tool>__<id>); a
// foreign id is kept after the tool's name.
func callID(name, id string) string {
	if strings.HasPrefix(id, name+"__") {
		return id
	}
	if id == "" {
		id = newID()[:12]
	}
	return name + "__" + id
}

func stampOf(b *cairn.Block, now time.Time) string {
	if !b.Timestamp.IsZero() {
		return b.Timestamp.UTC().Format(TimeFormat)
	}
	return now.UTC().Format(TimeFormat)
}

func newID() string { return NewSessionID() }

// MarkProject records the project a chats folder belongs to in
// <project folder>/.project_root, as the client does, unless it is
// recorded already: an import names the project of the sessions in it, and
// the client, taking a tmp/<hash> folder over, finds its own marker.
func MarkProject(chatsDir, project string) error {
	path := filepath.Join(filepath.Dir(chatsDir), ".project_root")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	return os.WriteFile(path, []byte(project), 0o600)
}
