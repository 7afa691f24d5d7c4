package claudetest_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

const (
	tools   = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01" // auth, migration, benchmark
	compact = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03" // /compact in round 3
	resumed = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04" // the console message
)

// TestResume exports surgical sessions from the sample transcripts, has the
// real client resume each one, and reads the request it sends: the index
// table is there, the rounds in full are there (every text, every tool call
// with its result right after it), nothing of the rounds left out is, and
// nothing the export holds was dropped by the client's loader. It runs on
// the oldest supported and the newest tested release.
func TestResume(t *testing.T) {
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { testResume(t, c.Path) })
	}
}

func testResume(t *testing.T, bin string) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	full := cairn.FullFidelity
	for _, c := range []struct {
		name string
		run  func() ([]*cairn.Materialization, error)
	}{
		{"compress-before", func() ([]*cairn.Materialization, error) {
			m, err := surgery.CompressBefore(ctx, st, tools, surgery.Point{Seq: 3}, full)
			return []*cairn.Materialization{m}, err
		}},
		{"compress-before-compacted", func() ([]*cairn.Materialization, error) {
			m, err := surgery.CompressBefore(ctx, st, compact, surgery.Point{Seq: 3}, full)
			return []*cairn.Materialization{m}, err
		}},
		{"extract-engagement", func() ([]*cairn.Materialization, error) {
			m, err := surgery.ExtractEngagement(ctx, st, resumed, "console", full)
			return []*cairn.Materialization{m}, err
		}},
		{"merge", func() ([]*cairn.Materialization, error) {
			m, err := surgery.Merge(ctx, st, resumed, tools, full)
			return []*cairn.Materialization{m}, err
		}},
		{"split", func() ([]*cairn.Materialization, error) {
			sm, err := surgery.ParseSplitMap("1=shared,2=db,3=bench")
			if err != nil {
				return nil, err
			}
			return surgery.Split(ctx, st, tools, sm, full)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				name := c.name
				if m.Label != "" {
					name += "-" + m.Label
				}
				t.Run(name, func(t *testing.T) { resume(t, bin, st, m, name) })
			}
		})
	}
}

func resume(t *testing.T, bin string, st surgery.Store, m *cairn.Materialization, name string) {
	ctx := context.Background()
	home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	id := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: id, Cwd: cwd, Summary: surgery.Summary(m)}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var file []byte
	for _, l := range lines {
		file = append(file, l...)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), file, 0o644); err != nil {
		t.Fatal(err)
	}

	api := fakeapi.New()
	defer api.Close()
	prompt := "E2E " + name + ": carry on from here."
	res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", id, "-p", prompt)
	if res.IsError {
		t.Fatalf("client reported an error: %+v", res)
	}
	req := mainRequest(t, api, prompt)
	got := readRequest(t, req)

	// The index table arrives with the first user message.
	if idx := m.IndexRounds(); len(idx) > 0 {
		first := strings.Join(req.Messages[0].Texts(), "\n")
		for _, r := range idx {
			if !strings.Contains(first, export.IndexLine(r)) {
				t.Errorf("index line of round %d is not in the first message:\n%s", r.Seq, export.IndexLine(r))
			}
		}
	}
	// Everything the export holds arrives: texts, tool calls, results.
	for n, raw := range lines[2:] {
		var l struct {
			Type    string `json:"type"`
			Message *struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if err := json.Unmarshal(raw, &l); err != nil || l.Message == nil || (l.Type != "user" && l.Type != "assistant") {
			continue
		}
		for _, b := range blocksOf(l.Message.Content) {
			switch b.Type {
			case "text":
				if l.Type == "assistant" && !got.hasText(b.Text) {
					t.Errorf("export line %d: assistant text %.80q missing from the request", n+3, b.Text)
				}
			case "tool_use":
				if got.uses[b.ID] != b.Name {
					t.Errorf("export line %d: tool_use %s (%s) missing from the request", n+3, b.ID, b.Name)
				}
			case "tool_result":
				if _, ok := got.results[b.ToolUseID]; !ok {
					t.Errorf("export line %d: tool_result for %s missing from the request", n+3, b.ToolUseID)
				}
			case "":
				if l.Type == "user" && !strings.HasPrefix(b.Text, "<") && !got.hasText(b.Text) {
					t.Errorf("export line %d: user text %.80q missing from the request", n+3, b.Text)
				}
			}
		}
	}
	// The rounds in full arrive verbatim.
	for _, p := range m.FullPieces() {
		for _, b := range p.Round.Blocks {
			switch b.Kind {
			case cairn.UserText, cairn.AssistantText:
				if !got.hasText(b.Content) {
					t.Errorf("round %d: %s %.80q is not in the request verbatim", p.Round.Seq, b.Kind, b.Content)
				}
			case cairn.ToolResult:
				if c, ok := got.results[b.ToolID]; !ok || !strings.Contains(c, firstLine(b.Content)) {
					t.Errorf("round %d: the result of %s is not in the request", p.Round.Seq, b.ToolID)
				}
			}
		}
	}
	// Nothing of the rounds left out or compressed arrives.
	kept := map[int]bool{}
	for _, p := range m.FullPieces() {
		if p.Round.SessionID == m.Sources[0].ID {
			kept[p.Round.Seq] = true
		}
	}
	for _, s := range m.Sources {
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, FromSeq: 1, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rounds {
			if len(m.Sources) > 1 || kept[r.Seq] {
				continue
			}
			for _, b := range r.Blocks {
				switch {
				case b.Kind == cairn.ToolUse && strings.Contains(string(req.body), b.ToolID):
					t.Errorf("round %d (not in full): tool call %s is in the request", r.Seq, b.ToolID)
				case b.Kind == cairn.UserText && r.AgentPreview != "" && got.hasText(b.Content) && !inClientSummary(m, b.Content):
					t.Errorf("round %d (not in full): its prompt is in the request", r.Seq)
				case b.Kind == cairn.ToolResult && got.results[b.ToolID] != "":
					// (Its text may still arrive another way: /compact re-reads
					// recent files as attachments of a kept round.)
					t.Errorf("round %d (not in full): result of %s is in the request", r.Seq, b.ToolID)
				case b.Kind == cairn.AssistantText && len([]rune(b.Content)) > 100 && got.hasText(b.Content):
					t.Errorf("round %d (not in full): its answer %.60q is in the request beyond the index preview", r.Seq, b.Content)
				}
			}
		}
	}
	// Every tool call is answered in the very next message.
	for i, msg := range req.Messages {
		if msg.Role != "assistant" {
			continue
		}
		for _, b := range blocksOf(msg.Content) {
			if b.Type != "tool_use" {
				continue
			}
			next := i + 1
			for next < len(req.Messages) && req.Messages[next].Role == "system" {
				next++
			}
			if next >= len(req.Messages) || req.Messages[next].Role != "user" || !strings.Contains(string(req.Messages[next].Content), b.ID) {
				t.Errorf("message %d: tool_use %s is not answered by the next message", i, b.ID)
			}
		}
	}
	if last := lastUser(req.Messages); last == nil || !strings.Contains(strings.Join(last.Texts(), " "), prompt) {
		t.Errorf("the request does not end on the new prompt")
	}
	t.Logf("%s: %d lines exported, request of %d messages, %d tool calls, %d index lines", name, len(lines), len(req.Messages), len(got.uses), len(m.IndexRounds()))
}

type request struct {
	fakeapi.MessagesRequest
	body []byte
}

// mainRequest returns the first request of the agent loop for prompt: the
// one with tools whose last message holds the prompt.
func mainRequest(t *testing.T, api *fakeapi.Server, prompt string) *request {
	t.Helper()
	var paths []string
	for _, r := range api.Requests() {
		paths = append(paths, r.Path)
		var req fakeapi.MessagesRequest
		if json.Unmarshal(r.Body, &req) != nil || len(req.Tools) == 0 || len(req.Messages) == 0 {
			continue
		}
		// The client 2.1.330 may append "system" role messages after the
		// prompt (its environment); the prompt is in the last user message.
		if last := lastUser(req.Messages); last != nil && strings.Contains(strings.Join(last.Texts(), " "), prompt) {
			return &request{req, r.Body}
		}
	}
	if dump := os.Getenv("CAIRN_E2E_DUMP"); dump != "" {
		for i, r := range api.Requests() {
			_ = os.WriteFile(filepath.Join(dump, fmt.Sprintf("req-%d.json", i)), r.Body, 0o644)
		}
	}
	t.Fatalf("no request carried the prompt; requests: %v", paths)
	return nil
}

func lastUser(msgs []fakeapi.Message) *fakeapi.Message {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return &msgs[i]
		}
	}
	return nil
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
}

// blocksOf returns a message's blocks; a string content is one block of
// type "".
func blocksOf(raw json.RawMessage) []block {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []block{{Text: s}}
	}
	var bs []block
	_ = json.Unmarshal(raw, &bs)
	return bs
}

// sent is what a request carried.
type sent struct {
	texts   []string
	uses    map[string]string // tool_use id → name
	results map[string]string // tool_use id → result text
}

func readRequest(t *testing.T, req *request) *sent {
	t.Helper()
	s := &sent{uses: map[string]string{}, results: map[string]string{}}
	for _, m := range req.Messages {
		for _, b := range blocksOf(m.Content) {
			switch b.Type {
			case "", "text":
				s.texts = append(s.texts, b.Text)
			case "tool_use":
				s.uses[b.ID] = b.Name
			case "tool_result":
				var text string
				if json.Unmarshal(b.Content, &text) != nil {
					for _, p := range blocksOf(b.Content) {
						text += p.Text
					}
				}
				s.results[b.ToolUseID] = text
			}
		}
	}
	return s
}

func (s *sent) hasText(text string) bool {
	for _, t := range s.texts {
		if strings.Contains(t, text) {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// mustOpenSamples returns a store holding the sample transcripts with
// tools 1 = auth, tools 2 = db, resumed 1-2 = console.
func mustOpenSamples(tb testing.TB) surgery.Store {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	rep, err := im.Import(context.Background(), []string{"../../testdata/claudecode"})
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	tags := sqlite.NewTagStore(db)
	for _, tg := range []struct {
		session string
		seqs    []int
		eng     string
	}{{tools, []int{1}, "auth"}, {tools, []int{2}, "db"}, {resumed, []int{1, 2}, "console"}} {
		if err := tags.TagRounds(context.Background(), tg.session, tg.seqs, tg.eng, ""); err != nil {
			tb.Fatal(err)
		}
	}
	return surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}
}

// inClientSummary reports whether text is quoted by a compaction summary
// the client wrote and cairn carries (it lists the user's messages).
func inClientSummary(m *cairn.Materialization, text string) bool {
	for _, p := range m.Pieces {
		if p.Compaction != nil && strings.Contains(p.Compaction.Summary, text) {
			return true
		}
	}
	return false
}
