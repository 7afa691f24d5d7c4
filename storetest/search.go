package storetest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func testSearch(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	a := newSession("adad0000-0000-0000-0000-000000000000", "/src/app", t0, 3, func(i int) (string, string) {
		return []string{"", "set up the authentication module", "write the database migration", "run the benchmark"}[i],
			[]string{"", "authentication works now", "the migration added two tables", "benchmark: 120 MB/s"}[i]
	})
	b := newSession("adad1111-0000-0000-0000-000000000000", "/src/other", t0.Add(24*time.Hour), 1, func(int) (string, string) {
		return "another migration please", "done"
	})
	b.s.Agent = cairn.AgentCodex
	MustInscribe(t, st, a.in)
	MustInscribe(t, st, b.in)

	t.Run("OneHitPerRound", func(t *testing.T) {
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "authentication"})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 || hits[0].SessionID != a.s.ID || hits[0].RoundSeq != 1 || hits[0].Project != "/src/app" {
			t.Fatalf("hits = %+v", hits)
		}
		if !strings.Contains(hits[0].Snippet, cairn.HighlightStart+"authentication"+cairn.HighlightEnd) {
			t.Fatalf("snippet not highlighted: %q", hits[0].Snippet)
		}
	})
	t.Run("ThinkingNotIndexed", func(t *testing.T) {
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "secret musing"})
		if err != nil || len(hits) != 0 {
			t.Fatalf("thinking is searchable: %+v, %v", hits, err)
		}
	})
	t.Run("AllWordsMustMatch", func(t *testing.T) {
		hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "migration tables"})
		if len(hits) != 1 || hits[0].RoundSeq != 2 {
			t.Fatalf("hits = %+v", hits)
		}
	})
	t.Run("Prefix", func(t *testing.T) {
		hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "bench*"})
		if len(hits) != 1 || hits[0].RoundSeq != 3 {
			t.Fatalf("hits = %+v", hits)
		}
	})
	t.Run("Filters", func(t *testing.T) {
		for _, c := range []struct {
			name string
			q    cairn.SearchQuery
			want []string
		}{
			{"None", cairn.SearchQuery{Text: "migration"}, []string{a.s.ID, b.s.ID}},
			{"Session", cairn.SearchQuery{Text: "migration", SessionID: b.s.ID}, []string{b.s.ID}},
			{"Project", cairn.SearchQuery{Text: "migration", Project: "/src/app"}, []string{a.s.ID}},
			{"Since", cairn.SearchQuery{Text: "migration", Since: t0.Add(12 * time.Hour)}, []string{b.s.ID}},
			{"Until", cairn.SearchQuery{Text: "migration", Until: t0.Add(12 * time.Hour)}, []string{a.s.ID}},
			{"AgentCodex", cairn.SearchQuery{Text: "migration", Agent: cairn.AgentCodex}, []string{b.s.ID}},
			{"AgentClaudeCode", cairn.SearchQuery{Text: "migration", Agent: cairn.AgentClaudeCode}, []string{a.s.ID}},
			{"AgentAndSession", cairn.SearchQuery{Text: "migration", Agent: cairn.AgentClaudeCode, SessionID: b.s.ID}, []string{}},
			{"Limit", cairn.SearchQuery{Text: "migration", Limit: 1}, nil},
		} {
			t.Run(c.name, func(t *testing.T) {
				hits, err := st.Searcher.Search(ctx, c.q)
				if err != nil {
					t.Fatal(err)
				}
				if c.want == nil {
					if len(hits) != 1 {
						t.Fatalf("got %d hits, want 1", len(hits))
					}
					return
				}
				got := map[string]bool{}
				for _, h := range hits {
					got[h.SessionID] = true
				}
				if len(got) != len(c.want) || len(hits) != len(c.want) {
					t.Fatalf("hits = %+v, want sessions %v", hits, c.want)
				}
				for _, id := range c.want {
					if !got[id] {
						t.Fatalf("missing %s in %+v", id, hits)
					}
				}
			})
		}
	})
	t.Run("CJK", func(t *testing.T) {
		st := open(t)
		s := newSession("afaf0000-0000-0000-0000-000000000000", "/p", t0, 1, func(int) (string, string) {
			return "CLAUDE.mdファイルを最新の状態にアップデートしてください", "了解しました"
		})
		MustInscribe(t, st, s.in)
		for _, q := range []string{"最新の状態", "アップデート", "最新", "了解", "CLAUDE", "md"} {
			hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: q})
			if err != nil || len(hits) != 1 {
				t.Fatalf("%q: %d hits, %v", q, len(hits), err)
			}
		}
		hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "最新の状態"})
		if !strings.Contains(hits[0].Snippet, cairn.HighlightStart+"最新の状態"+cairn.HighlightEnd) {
			t.Fatalf("snippet = %q", hits[0].Snippet)
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "状態最新"}); len(hits) != 0 {
			t.Fatalf("characters out of order matched: %+v", hits)
		}
	})
	t.Run("NoSurgery", func(t *testing.T) {
		st := open(t)
		src := newSession("acac0000-0000-0000-0000-000000000000", "/p", t0, 1, func(int) (string, string) { return "tune the query planner", "done" })
		// An exported copy carries its source's times, which are before
		// the store first held it (the stores' clocks read t0).
		cut := newSession("acac1111-0000-0000-0000-000000000000", "/p", t0.Add(-time.Hour), 1, func(int) (string, string) { return "tune the query planner", "done" })
		MustInscribe(t, st, src.in)
		MustInscribe(t, st, cut.in)
		if err := st.Sessions.SetLineage(ctx, cut.s.ID, cairn.LineageSurgery, []string{src.s.ID}, cairn.OpCompressBefore, ""); err != nil {
			t.Fatal(err)
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "planner"}); len(hits) != 2 {
			t.Fatalf("every session: %d hits", len(hits))
		}
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "planner", NoSurgery: true})
		if err != nil || len(hits) != 1 || hits[0].SessionID != src.s.ID {
			t.Fatalf("NoSurgery: %+v, %v", hits, err)
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "planner", NoSurgery: true, SessionID: cut.s.ID}); len(hits) != 1 {
			t.Fatalf("NoSurgery with the surgical session named: %d hits", len(hits))
		}
		list, n, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{NoSurgery: true})
		if err != nil || n != 1 || len(list) != 1 || list[0].ID != src.s.ID {
			t.Fatalf("FindSessions NoSurgery: %d %v %v", n, list, err)
		}
		if _, n, _ := st.Sessions.FindSessions(ctx, cairn.SessionFilter{}); n != 2 {
			t.Fatalf("FindSessions: %d sessions, want both", n)
		}
	})
	t.Run("NoSurgeryContinued", func(t *testing.T) {
		// A surgical session the user resumed and worked in: its exported
		// round (written before the store first held it) repeats its
		// source and stays out; the round written after is the user's,
		// found and listed without asking for surgery.
		st := open(t)
		src := newSession("adad0000-0000-0000-0000-000000000000", "/p", t0, 1, func(int) (string, string) { return "tune the query planner", "done" })
		cut := newSession("adad1111-0000-0000-0000-000000000000", "/p", t0.Add(-time.Hour), 2, func(i int) (string, string) {
			if i == 2 {
				return "now tune the vacuum planner", "vacuumed"
			}
			return "tune the query planner", "done"
		})
		later := time.Now().UTC().Add(time.Hour).Truncate(time.Millisecond)
		r2 := cut.in.Rounds[1]
		r2.StartedAt, r2.EndedAt = later, later.Add(time.Second)
		for _, l := range cut.in.Lines {
			if l.RoundSeq == 2 {
				l.Timestamp = later
			}
		}
		for _, b := range cut.in.Blocks {
			if b.RoundSeq == 2 {
				b.Timestamp = later
			}
		}
		MustInscribe(t, st, src.in)
		MustInscribe(t, st, cut.in)
		if err := st.Sessions.SetLineage(ctx, cut.s.ID, cairn.LineageRevive, []string{src.s.ID}, cairn.OpRevive, ""); err != nil {
			t.Fatal(err)
		}
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "planner", NoSurgery: true})
		if err != nil || len(hits) != 2 {
			t.Fatalf("NoSurgery: %+v, %v", hits, err)
		}
		for _, h := range hits {
			if h.SessionID == cut.s.ID && h.RoundSeq != 2 {
				t.Fatalf("NoSurgery found the exported round: %+v", h)
			}
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "vacuum", NoSurgery: true}); len(hits) != 1 || hits[0].SessionID != cut.s.ID {
			t.Fatalf("NoSurgery misses the continued round: %+v", hits)
		}
		if list, n, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{NoSurgery: true}); err != nil || n != 2 || len(list) != 2 {
			t.Fatalf("FindSessions NoSurgery leaves the continued session out: %d %v %v", n, list, err)
		}
	})
	t.Run("FilteredBelowTheBest", func(t *testing.T) {
		// The best matches are all in a surgical session, and every round
		// of the source matches twice (prompt and answer): a search that
		// leaves surgery out still finds limit rounds, each once, best
		// first.
		st := open(t)
		src := newSession("abab0000-0000-0000-0000-000000000000", "/p", t0, 30, func(i int) (string, string) {
			return fmt.Sprintf("look for the needle in file %d of the long list of files", i), fmt.Sprintf("found a needle in file %d", i)
		})
		cut := newSession("abab1111-0000-0000-0000-000000000000", "/p", t0.Add(-time.Hour), 30, func(i int) (string, string) {
			return fmt.Sprintf("needle needle needle %d", i), "done"
		})
		MustInscribe(t, st, src.in)
		MustInscribe(t, st, cut.in)
		if err := st.Sessions.SetLineage(ctx, cut.s.ID, cairn.LineageSurgery, []string{src.s.ID}, cairn.OpCompressBefore, ""); err != nil {
			t.Fatal(err)
		}
		if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "needle", Limit: 5}); err != nil || len(hits) != 5 || hits[0].SessionID != cut.s.ID {
			t.Fatalf("every session: best hit %+v, %v", hits, err)
		}
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "needle", Limit: 25, NoSurgery: true})
		if err != nil || len(hits) != 25 {
			t.Fatalf("NoSurgery: %d hits, %v", len(hits), err)
		}
		rounds := map[int]bool{}
		for i, h := range hits {
			if h.SessionID != src.s.ID || rounds[h.RoundSeq] {
				t.Fatalf("hit %d: %+v (rounds so far %v)", i, h, rounds)
			}
			rounds[h.RoundSeq] = true
			if i > 0 && hits[i-1].Rank > h.Rank {
				t.Fatalf("hit %d ranks %v after %v", i, h.Rank, hits[i-1].Rank)
			}
		}
	})
	t.Run("SessionBehindNewerMatches", func(t *testing.T) {
		// A word found in thousands of newer blocks elsewhere is still
		// found in the session named, however old.
		st := open(t)
		old := newSession("abab2222-0000-0000-0000-000000000000", "/p", t0, 2, func(i int) (string, string) {
			return fmt.Sprintf("an old question %d", i), "the usual answer"
		})
		newer := newSession("abab3333-0000-0000-0000-000000000000", "/p", t0.Add(time.Hour), 1100, func(i int) (string, string) {
			return fmt.Sprintf("the usual question %d", i), "the usual answer"
		})
		MustInscribe(t, st, old.in)
		MustInscribe(t, st, newer.in)
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "usual", SessionID: old.s.ID})
		if err != nil || len(hits) != 2 || hits[0].SessionID != old.s.ID {
			t.Fatalf("hits in the old session: %+v, %v", hits, err)
		}
	})
	t.Run("Emoji", func(t *testing.T) {
		st := open(t)
		s := newSession("afaf1111-0000-0000-0000-000000000000", "/p", t0, 2, func(i int) (string, string) {
			return []string{"", "ship it 🚀 tonight", "the build is green"}[i], []string{"", "launched🚀", "✅ all checks pass"}[i]
		})
		MustInscribe(t, st, s.in)
		for q, want := range map[string]int{"🚀": 1, "✅": 2, "launched🚀": 1, "ship 🚀": 1, "🎉": 0, "✅ checks": 2} {
			hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: q})
			if err != nil || want == 0 && len(hits) != 0 || want > 0 && (len(hits) != 1 || hits[0].RoundSeq != want) {
				t.Fatalf("%q: hits %+v, %v; want round %d", q, hits, err, want)
			}
		}
		hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "🚀"})
		if !strings.Contains(hits[0].Snippet, cairn.HighlightStart+"🚀"+cairn.HighlightEnd) {
			t.Fatalf("snippet = %q", hits[0].Snippet)
		}
	})
	t.Run("SyntaxIsNotInterpreted", func(t *testing.T) {
		for _, q := range []string{`"unbalanced`, "NEAR(a b)", "a OR", "col:value", "-x", "(("} {
			if _, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: q}); err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
				t.Fatalf("query %q: %v", q, err)
			}
		}
	})
	t.Run("ErrEmpty", func(t *testing.T) {
		_, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "  "})
		wantCode(t, err, cairn.EINVALID)
	})
}

func testReindex(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("aeae0000-0000-0000-0000-000000000000", "/p", t0, 2, plain)
	MustInscribe(t, st, s.in)
	var calls int
	err := Reindex(ctx, st, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
		calls++
		if len(lines) != 4 {
			t.Fatalf("rebuild got %d lines", len(lines))
		}
		// Rebuild as a single round holding every line.
		r := &cairn.Round{SessionID: sess.ID, Seq: 1, FirstLine: 1, LastLine: 4, StartedAt: t0, EndedAt: t0, UserPreview: "merged"}
		for _, l := range lines {
			l.RoundSeq = 1
		}
		// A rebuild may find the session is another harness's.
		sess.Agent = cairn.AgentCodex
		return &cairn.Inscription{Session: sess, Lines: lines, Rounds: []*cairn.Round{r}, Blocks: []*cairn.Block{
			{SessionID: sess.ID, RoundSeq: 1, LineNo: 1, Role: "user", Kind: cairn.UserText, Content: "reindexed words"},
		}}, nil
	})
	if err != nil || calls != 1 {
		t.Fatalf("reindex: %v (%d calls)", err, calls)
	}
	rounds, _ := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.s.ID})
	if len(rounds) != 1 || rounds[0].UserPreview != "merged" {
		t.Fatalf("rounds after reindex = %+v", rounds)
	}
	if got, err := st.Sessions.FindSessionByID(ctx, s.s.ID); err != nil || got.Agent != cairn.AgentCodex {
		t.Fatalf("agent after reindex: %+v %v, want %s", got, err, cairn.AgentCodex)
	}
	if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "question"}); len(hits) != 0 {
		t.Fatalf("old index still searchable: %+v", hits)
	}
	if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "reindexed"}); len(hits) != 1 {
		t.Fatalf("new index not searchable: %+v", hits)
	}
	lines, _ := st.Lines.FindLines(ctx, s.s.ID, 0, 0)
	if len(lines) != 4 || lines[3].RoundSeq != 1 || string(lines[0].Raw) != string(s.in.Lines[0].Raw) {
		t.Fatalf("lines after reindex: %d", len(lines))
	}
}

// toolSession is a fixture: round 1 plain words, round 2 a prompt and
// three steps: a Bash call that fails, an Edit, and an answer.
func toolSession(id string) *cairn.Inscription {
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: "/src/app"}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	blocks := []*cairn.Block{
		{RoundSeq: 1, Role: "user", Kind: cairn.UserText, Content: "say hello"},
		{RoundSeq: 1, Role: "assistant", Kind: cairn.AssistantText, Content: "hello", MessageID: "a0"},
		{RoundSeq: 2, Role: "user", Kind: cairn.UserText, Content: "fix the failing handler"},
		{RoundSeq: 2, Role: "assistant", Kind: cairn.AssistantText, Content: "Running the tests first.", MessageID: "a1"},
		{RoundSeq: 2, Role: "assistant", Kind: cairn.ToolUse, ToolName: "Bash", ToolID: "toolu_1", MessageID: "a1",
			Content: `{"command":"go test ./internal/zephyrfetch/... -run TestLoad","description":"Run the package's tests"}`},
		{RoundSeq: 2, Role: "user", Kind: cairn.ToolResult, ToolName: "Bash", ToolID: "toolu_1", IsError: true,
			Content: "Exit code 1\n# cairn/internal/zephyrfetch\ninternal/zephyrfetch/load.go:12:2: undefined: frobnicateWidget\nFAIL"},
		{RoundSeq: 2, Role: "assistant", Kind: cairn.ToolUse, ToolName: "Edit", ToolID: "toolu_2", MessageID: "a2",
			Content: `{"file_path":"/src/app/internal/quuxlayer/handler.go","old_string":"frob()","new_string":"widget()"}`},
		{RoundSeq: 2, Role: "user", Kind: cairn.ToolResult, ToolName: "Edit", ToolID: "toolu_2",
			Content: "The file has been updated."},
		{RoundSeq: 2, Role: "assistant", Kind: cairn.AssistantText, Content: "The authentication handler compiles again.", MessageID: "a3"},
	}
	for i, b := range blocks {
		no := i + 1
		at := t0.Add(time.Duration(i) * time.Second)
		b.SessionID, b.LineNo, b.Timestamp = id, no, at
		raw := fmt.Sprintf(`{"n":%d}`+"\n", no)
		in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: no, Offset: in.Source.Offset, Raw: []byte(raw),
			Type: b.Role, UUID: fmt.Sprintf("u-%d", no), Timestamp: at, RoundSeq: b.RoundSeq, Status: cairn.LineOK})
		in.Source.Offset += int64(len(raw))
		in.Source.Lines++
	}
	in.Rounds = []*cairn.Round{
		{SessionID: id, Seq: 1, StartedAt: t0, EndedAt: t0.Add(time.Second), FirstLine: 1, LastLine: 2},
		{SessionID: id, Seq: 2, StartedAt: t0.Add(2 * time.Second), EndedAt: t0.Add(8 * time.Second), FirstLine: 3, LastLine: 9},
	}
	idx := 0
	for i, b := range blocks {
		if i > 0 && b.RoundSeq != blocks[i-1].RoundSeq {
			idx = 0
		}
		b.Index, idx = idx, idx+1
	}
	in.Blocks = blocks
	return in
}

func testSearchTools(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	in := toolSession("a1a10000-0000-0000-0000-000000000000")
	MustInscribe(t, st, in)
	check := func(t *testing.T, query string, kind cairn.BlockKind, step int, ref string) {
		t.Helper()
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: query})
		if err != nil {
			t.Fatal(err)
		}
		if len(hits) != 1 {
			t.Fatalf("%q: %d hits, want 1: %+v", query, len(hits), hits)
		}
		h := hits[0]
		if h.RoundSeq != 2 || h.Step != step || h.Ref != ref || h.Kind != kind {
			t.Fatalf("%q: hit at %s (round %d step %d, %s), want %s (%s)", query, h.Ref, h.RoundSeq, h.Step, h.Kind, ref, kind)
		}
		if !strings.Contains(h.Snippet, cairn.HighlightStart) {
			t.Fatalf("%q: snippet not highlighted: %q", query, h.Snippet)
		}
	}
	t.Run("BashCommand", func(t *testing.T) { check(t, "zephyrfetch TestLoad", cairn.ToolUse, 1, "2.1") })
	t.Run("ErrorText", func(t *testing.T) { check(t, "frobnicateWidget", cairn.ToolResult, 1, "2.1") })
	t.Run("EditPath", func(t *testing.T) { check(t, "quuxlayer", cairn.ToolUse, 2, "2.2") })
	t.Run("ToolName", func(t *testing.T) { check(t, "Edit widget", cairn.ToolUse, 2, "2.2") })
	t.Run("Answer", func(t *testing.T) { check(t, "compiles", cairn.AssistantText, 3, "2.3") })
	t.Run("Prompt", func(t *testing.T) { check(t, "failing", cairn.UserText, 0, "2") })
	t.Run("WordForms", func(t *testing.T) {
		check(t, "auth", cairn.AssistantText, 3, "2.3")
		check(t, "quux", cairn.ToolUse, 2, "2.2")
	})
	t.Run("SnippetOfToolCall", func(t *testing.T) {
		hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "quuxlayer"})
		if len(hits) != 1 || strings.Contains(hits[0].Snippet, "file_path") || !strings.Contains(hits[0].Snippet, "Edit") {
			t.Fatalf("snippet of an Edit: %+v", hits)
		}
	})
	t.Run("OneHitPerStep", func(t *testing.T) {
		// handler is in the prompt, the Edit's path (step 2) and the
		// answer (step 3): one hit for the round, or one per step.
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "handler"})
		if err != nil || len(hits) != 1 || hits[0].RoundSeq != 2 {
			t.Fatalf("per round: %+v, %v", hits, err)
		}
		hits, err = st.Searcher.Search(ctx, cairn.SearchQuery{Text: "handler", Steps: true})
		if err != nil {
			t.Fatal(err)
		}
		var refs []string
		for _, h := range hits {
			refs = append(refs, h.Ref)
		}
		sort.Strings(refs)
		if strings.Join(refs, " ") != "2 2.2 2.3" {
			t.Fatalf("per step: %v, want 2 2.2 2.3", refs)
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "handler", Steps: true, Limit: 2}); len(hits) != 2 {
			t.Fatalf("per step, limit 2: %d hits", len(hits))
		}
	})
	t.Run("KeysNotIndexed", func(t *testing.T) {
		// Every call has them: a key would match every call of its tool.
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "file_path"}); len(hits) != 0 {
			t.Fatalf("a key of the input matched: %+v", hits)
		}
	})
	t.Run("ShortWordsWhole", func(t *testing.T) {
		// "go" is two letters: whole words only, not "good".
		st := open(t)
		s := newSession("a1a12222-0000-0000-0000-000000000000", "/p", t0, 1, func(int) (string, string) { return "a good day", "yes" })
		MustInscribe(t, st, s.in)
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "go"}); len(hits) != 0 {
			t.Fatalf("go matched good: %+v", hits)
		}
	})
	t.Run("Reindex", func(t *testing.T) {
		// A rebuild numbers steps as an import does.
		err := Reindex(ctx, st, func(sess *cairn.Session, lines []*cairn.Line) (*cairn.Inscription, error) {
			again := toolSession(sess.ID)
			again.Session, again.Lines = sess, lines
			return again, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		check(t, "frobnicateWidget", cairn.ToolResult, 1, "2.1")
		check(t, "quuxlayer", cairn.ToolUse, 2, "2.2")
	})
	t.Run("LongResultIndexedToItsStart", func(t *testing.T) {
		st := open(t)
		in := toolSession("a1a11111-0000-0000-0000-000000000000")
		in.Blocks[5].Content = "startword " + strings.Repeat("filler ", cairn.IndexChars/7) + " endword"
		MustInscribe(t, st, in)
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "startword"}); len(hits) != 1 || hits[0].Ref != "2.1" {
			t.Fatalf("the start of a long result: %+v", hits)
		}
		if hits, _ := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "endword"}); len(hits) != 0 {
			t.Fatalf("a long result is indexed past %d characters: %+v", cairn.IndexChars, hits)
		}
	})
}

// testSearchAccept: a block the query's Accept refuses is no hit, and the
// other matches still fill the limit.
func testSearchAccept(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	a := newSession("7ac00000-0000-0000-0000-000000000000", "/p", t0, 6, func(i int) (string, string) {
		if i%2 == 0 {
			return fmt.Sprintf("shared word refused %d", i), "reply"
		}
		return fmt.Sprintf("shared word kept %d", i), "reply"
	})
	MustInscribe(t, st, a.in)
	var asked int
	q := cairn.SearchQuery{Text: "shared", Limit: 3, Accept: func(text string) bool {
		asked++
		return !strings.Contains(text, "refused")
	}}
	hits, err := st.Searcher.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 3 || asked < 3 {
		t.Fatalf("%d hits (Accept asked %d times), want the 3 kept rounds", len(hits), asked)
	}
	for _, h := range hits {
		if h.RoundSeq%2 == 0 || strings.Contains(h.Snippet, "refused") {
			t.Errorf("a refused block is a hit: round %d %q", h.RoundSeq, h.Snippet)
		}
	}
}
