package http_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mock"
)

func TestSearch(t *testing.T) {
	s, st := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?q=migration", &got)
		if len(got.Hits) == 0 {
			t.Fatal("no hits for migration")
		}
		for _, h := range got.Hits {
			if !strings.Contains(h.SnippetHTML, "<mark>") || strings.ContainsAny(h.SnippetHTML, cairn.HighlightStart+cairn.HighlightEnd) {
				t.Fatalf("snippet_html %q: want <mark> in place of the markers", h.SnippetHTML)
			}
		}
		MustGet(t, s, "/api/search?q=migration&session="+sessionA+"&limit=1", &got)
		if len(got.Hits) != 1 || got.Hits[0].SessionID != sessionA {
			t.Fatalf("in session A: %+v", got.Hits)
		}
		// Every session here is Claude Code's.
		MustGet(t, s, "/api/search?q=migration&agent=claude-code", &got)
		if len(got.Hits) == 0 {
			t.Fatal("no hits for migration in Claude Code's sessions")
		}
		MustGet(t, s, "/api/search?q=migration&agent=codex", &got)
		if len(got.Hits) != 0 {
			t.Fatalf("Codex's sessions: %+v, want none", got.Hits)
		}
	})
	// Hits name their session: its title, and for a subagent its lineage,
	// agent and parent, so the page can tell the two apart.
	t.Run("Sessions", func(t *testing.T) {
		ctx := context.Background()
		sub, err := st.Sessions.FindSessionByID(ctx, subagentB)
		if err != nil {
			t.Fatal(err)
		}
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: subagentB, FromSeq: 1})
		if err != nil || len(rounds) == 0 {
			t.Fatalf("subagent rounds: %v", err)
		}
		word := strings.Fields(rounds[0].UserPreview)[0]
		var got cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?limit=100&q="+word, &got)
		found := false
		for _, h := range got.Hits {
			sess, err := st.Sessions.FindSessionByID(ctx, h.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if h.Title != sess.Title || h.Lineage != sess.Lineage {
				t.Fatalf("hit in %s: title %q lineage %q, want %q %q", h.SessionID, h.Title, h.Lineage, sess.Title, sess.Lineage)
			}
			if h.SessionID == subagentB {
				found = true
				if h.Lineage != cairn.LineageSubagent || h.AgentID != sub.AgentID || h.Parent != sessionB {
					t.Fatalf("subagent hit: %+v", h)
				}
			}
		}
		if !found {
			for _, b := range rounds[0].Blocks {
				var c2 cairn.StepCounter
				_ = c2
				if strings.Contains(strings.ToLower(b.Content), "mix") && strings.Contains(strings.ToLower(b.Content), "test") {
					i := strings.Index(strings.ToLower(b.Content), "mix")
					t.Logf("block %d %s: %q", b.Index, b.Kind, b.Content[max(0, i-40):min(len(b.Content), i+80)])
				}
			}
			t.Fatalf("no hit in the subagent for %q", word)
		}
	})
	// Where the client compacted the context is found by searching for it.
	t.Run("Compaction", func(t *testing.T) {
		var got cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?q=compacted", &got)
		for _, h := range got.Hits {
			if h.Kind == cairn.CompactionBlock && strings.Contains(h.Snippet, "manual, 120 tokens") {
				return
			}
		}
		t.Fatalf("no compaction among %d hits for compacted", len(got.Hits))
	})
	// A tool call is found by its command, at its step, which the round's
	// steps hold.
	t.Run("ToolCallStep", func(t *testing.T) {
		var got cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?q=benchtime&session="+sessionA, &got)
		if len(got.Hits) != 1 {
			t.Fatalf("hits for benchtime: %+v", got.Hits)
		}
		h := got.Hits[0]
		if h.Kind != cairn.ToolUse || h.Tool != "Bash" || h.Step == 0 || h.Ref != cairn.StepRef(h.RoundSeq, h.Step) {
			t.Fatalf("hit: %+v", h.Hit)
		}
		var round cairnhttp.RoundResponse
		MustGet(t, s, fmt.Sprintf("/api/sessions/%s/rounds/%d", sessionA, h.RoundSeq), &round)
		if len(round.Steps) < h.Step || len(round.Steps[h.Step-1].Calls) == 0 || !strings.Contains(round.Steps[h.Step-1].Calls[0].Arg, "benchtime") {
			t.Fatalf("step %s of the round does not call it", h.Ref)
		}
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/search?q=", "", 400, "Nothing to search for")
		WantError(t, s, "GET", "/api/search?q=x&limit=-2", "", 400, "want a number")
		WantError(t, s, "GET", "/api/search?q=x&since=soon", "", 400, "Cannot read")
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/search?q=x&session=ffff", "", 404, "No session")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Searcher = &mock.Searcher{SearchFn: func(context.Context, cairn.SearchQuery) ([]*cairn.Hit, error) {
			return nil, errors.New("fts5: syntax error near /etc")
		}}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/search?q=x", "", 500, "Internal error.")
	})
}

func TestHighlightHTML(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"plain", "plain"},
		{"a \x02hit\x03 b", "a <mark>hit</mark> b"},
		{"<script>alert(1)</script> \x02x\x03", "&lt;script&gt;alert(1)&lt;/script&gt; <mark>x</mark>"},
		{"\x02<b>&\x03", "<mark>&lt;b&gt;&amp;</mark>"},
		{`"quoted" 'single'`, "&#34;quoted&#34; &#39;single&#39;"},
	} {
		if got := cairnhttp.HighlightHTML(c.in); got != c.want {
			t.Errorf("HighlightHTML(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A search pages its hits: limit from offset, more while there are, the
// total once the last page is reached; the pages are the one list's.
func TestSearchPages(t *testing.T) {
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	var all cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=credo&limit=500", &all)
	n := len(all.Hits)
	if n < 7 || all.More || all.Total != n {
		t.Fatalf("credo: %d hits, more %v, total %d", n, all.More, all.Total)
	}
	var first, second, past cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=credo&limit=5", &first)
	MustGet(t, s, "/api/search?q=credo&limit=5&offset=5", &second)
	MustGet(t, s, "/api/search?q=credo&limit=5&offset="+strconv.Itoa(n+3), &past)
	// The first page knows the total: the store counts the hits.
	if len(first.Hits) != 5 || !first.More || first.Total != n || first.TotalMore {
		t.Fatalf("page 1: %d hits, more %v, total %d (more %v), want %d", len(first.Hits), first.More, first.Total, first.TotalMore, n)
	}
	for i, h := range append(first.Hits, second.Hits...) {
		if h.SessionID != all.Hits[i].SessionID || h.Ref != all.Hits[i].Ref {
			t.Fatalf("hit %d of the pages is %s %s, of the whole list %s %s", i, h.SessionID, h.Ref, all.Hits[i].SessionID, all.Hits[i].Ref)
		}
	}
	if want := min(5, n-5); len(second.Hits) != want || second.More != (n > 10) || (!second.More && second.Total != n) || second.Offset != 5 {
		t.Fatalf("page 2: %d hits, more %v, total %d, offset %d (of %d)", len(second.Hits), second.More, second.Total, second.Offset, n)
	}
	if len(past.Hits) != 0 || past.More || past.Total != n {
		t.Fatalf("past the end: %d hits, more %v, total %d (of %d)", len(past.Hits), past.More, past.Total, n)
	}
	if code, _ := Do(t, s, "GET", "/api/search?q=credo&offset=5001", ""); code != 400 {
		t.Fatalf("offset 5001: %d", code)
	}
}

// A search narrows by whose words or which part of a call (role), by
// tool, by phrase, and counts its hits to MaxSearchCount (issue 46, point
// 5).
func TestSearchFiltersAndCount(t *testing.T) {
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	get := func(query string) *cairnhttp.SearchResponse {
		t.Helper()
		var r cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?limit=500&"+query, &r)
		return &r
	}
	all := get("q=mix")
	calls, output := get("q=mix&role=call"), get("q=mix&role=output")
	bash := get("q=mix&tool=Bash")
	t.Logf("mix: %d hits, %d in calls, %d in output, %d in Bash", len(all.Hits), len(calls.Hits), len(output.Hits), len(bash.Hits))
	if len(calls.Hits) == 0 || len(output.Hits) == 0 || len(calls.Hits) >= len(all.Hits) {
		t.Fatalf("mix: %d hits, %d in calls, %d in output", len(all.Hits), len(calls.Hits), len(output.Hits))
	}
	for _, h := range calls.Hits {
		if h.Kind != cairn.ToolUse {
			t.Fatalf("role=call: a %s hit", h.Kind)
		}
	}
	for _, h := range output.Hits {
		if h.Kind != cairn.ToolResult {
			t.Fatalf("role=output: a %s hit", h.Kind)
		}
	}
	for _, h := range bash.Hits {
		if h.Tool != "Bash" {
			t.Fatalf("tool=Bash: a hit in %q", h.Tool)
		}
	}
	if len(bash.Hits) == 0 {
		t.Fatal("tool=Bash: no hit")
	}
	for _, u := range get("q=mix&role=user").Hits {
		if u.Kind != cairn.UserText {
			t.Fatalf("role=user: a %s hit", u.Kind)
		}
	}
	WantError(t, s, "GET", "/api/search?q=mix&role=robot", "", 400, "want user, agent, call or output")

	// A phrase: its words one after the other, not only each somewhere.
	words, phrase := get("q=mix+test"), get("q=%22mix+test%22")
	t.Logf("mix test: %d hits, \"mix test\": %d", len(words.Hits), len(phrase.Hits))
	if len(phrase.Hits) == 0 || len(phrase.Hits) >= len(words.Hits) {
		t.Fatalf("mix test: %d hits, \"mix test\": %d; want fewer, not none", len(words.Hits), len(phrase.Hits))
	}
	adjacent := regexp.MustCompile(`(?i)\bmix\w*\W+test`)
	for _, h := range phrase.Hits {
		rounds, err := st.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: h.SessionID, FromSeq: h.RoundSeq, ToSeq: h.RoundSeq + 1, WithBlocks: true})
		rounds = slices.DeleteFunc(rounds, func(r *cairn.Round) bool { return r.Seq != h.RoundSeq })
		if err != nil || len(rounds) != 1 {
			t.Fatalf("round %s %d: %v", h.SessionID, h.RoundSeq, err)
		}
		found := false
		for _, b := range rounds[0].Blocks {
			found = found || adjacent.MatchString(cairn.IndexText(b.Kind, b.ToolName, b.Content))
		}
		if !found {
			t.Fatalf("\"mix test\" found in round %d of %s, which does not hold it", h.RoundSeq, h.SessionID)
		}
	}

	// The total of a page of a common word: every step that holds it,
	// as many as the pages hold; the store's count stops at its max.
	var page cairnhttp.SearchResponse
	MustGet(t, s, "/api/search?q=the&limit=20", &page)
	every := get("q=the")
	t.Logf("the: total %d (more %v), %d hits", page.Total, page.TotalMore, len(every.Hits))
	if !page.More || page.Total != len(every.Hits) || page.TotalMore {
		t.Fatalf("the: more %v, total %d (more %v), want %d", page.More, page.Total, page.TotalMore, len(every.Hits))
	}
	if n, more, err := st.Searcher.CountHits(context.Background(), cairn.SearchQuery{Text: "the", Steps: true}, 100); n != 100 || !more || err != nil {
		t.Fatalf("the, counted to 100: %d, more %v, %v", n, more, err)
	}
	// A phrase's total past the page counts the steps that hold the
	// phrase, not those that hold its words, as its pages do; so does a
	// word the tokenizer splits (snake_case), searched as a phrase.
	for _, q := range []string{"%22mix+test%22", "%22the+file%22", "session_live"} {
		every := get("q=" + q)
		var page cairnhttp.SearchResponse
		MustGet(t, s, "/api/search?limit=2&q="+q, &page)
		t.Logf("%s: total %d (more %v), %d hits", q, page.Total, page.TotalMore, len(every.Hits))
		if len(every.Hits) <= 2 || !page.More || page.Total != len(every.Hits) || page.TotalMore {
			t.Fatalf("%s, a page of 2: more %v, total %d (more %v), want %d", q, page.More, page.Total, page.TotalMore, len(every.Hits))
		}
	}
	MustGet(t, s, "/api/search?q=mix&role=call&limit=2", &page)
	if page.Total != len(calls.Hits) || page.TotalMore {
		t.Fatalf("mix in calls, a page of 2: total %d (more %v), want %d", page.Total, page.TotalMore, len(calls.Hits))
	}
}
