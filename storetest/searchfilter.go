package storetest

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// testSearchNarrow: a search keeps the kinds of block (SearchQuery.Kinds)
// and the tool (Tool) asked for, holds quoted phrases to their words'
// order, and a store that counts hits (cairn.SearchCounter) counts what
// the search finds, to its max.
func testSearchNarrow(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	MustInscribe(t, st, toolSession("a1a30000-0000-0000-0000-000000000000"))
	refs := func(t *testing.T, q cairn.SearchQuery) string {
		t.Helper()
		q.Steps = true
		hits, err := st.Searcher.Search(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Ref+":"+string(h.Kind))
		}
		sort.Strings(out)
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		name string
		q    cairn.SearchQuery
		want string
	}{
		// handler: the prompt (2), the Edit's path (2.2), the answer (2.3).
		{"Every", cairn.SearchQuery{Text: "handler"}, "2.2:tool-use 2.3:assistant-text 2:user-text"},
		{"UserWords", cairn.SearchQuery{Text: "handler", Kinds: []cairn.BlockKind{cairn.UserText}}, "2:user-text"},
		{"AgentWords", cairn.SearchQuery{Text: "handler", Kinds: []cairn.BlockKind{cairn.AssistantText}}, "2.3:assistant-text"},
		{"Calls", cairn.SearchQuery{Text: "handler", Kinds: []cairn.BlockKind{cairn.ToolUse, cairn.ToolResult}}, "2.2:tool-use"},
		{"ToolCall", cairn.SearchQuery{Text: "zephyrfetch", Tool: "Bash", Kinds: []cairn.BlockKind{cairn.ToolUse}}, "2.1:tool-use"},
		{"ToolOutput", cairn.SearchQuery{Text: "zephyrfetch", Tool: "Bash", Kinds: []cairn.BlockKind{cairn.ToolResult}}, "2.1:tool-result"},
		{"ToolOutputOnly", cairn.SearchQuery{Text: "updated", Tool: "Bash"}, ""},
		{"ToolEdit", cairn.SearchQuery{Text: "updated", Tool: "Edit"}, "2.2:tool-result"},
		{"OtherTool", cairn.SearchQuery{Text: "zephyrfetch", Tool: "Edit"}, ""},
		// "failing handler" is in the prompt in that order; "handler
		// failing" nowhere, though both words are.
		{"Phrase", cairn.SearchQuery{Text: `"failing handler"`}, "2:user-text"},
		{"PhraseReversed", cairn.SearchQuery{Text: `"handler failing"`}, ""},
		{"PhraseAndWord", cairn.SearchQuery{Text: `fix "failing handler"`}, "2:user-text"},
		{"UnclosedQuote", cairn.SearchQuery{Text: `"authentication handler`}, "2.3:assistant-text"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := refs(t, c.q); got != c.want {
				t.Fatalf("%+v: %q, want %q", c.q, got, c.want)
			}
		})
	}
	t.Run("Count", func(t *testing.T) {
		counter, ok := st.Searcher.(cairn.SearchCounter)
		if !ok {
			t.Fatalf("%T counts no hits", st.Searcher)
		}
		for _, c := range []struct {
			q         cairn.SearchQuery
			max, want int
			more      bool
		}{
			{cairn.SearchQuery{Text: "handler", Steps: true}, 10, 3, false},
			{cairn.SearchQuery{Text: "handler"}, 10, 1, false},
			{cairn.SearchQuery{Text: "handler", Steps: true}, 2, 2, true},
			{cairn.SearchQuery{Text: "handler", Steps: true, Kinds: []cairn.BlockKind{cairn.UserText, cairn.AssistantText}}, 10, 2, false},
			{cairn.SearchQuery{Text: "zephyrfetch", Steps: true, Tool: "Edit"}, 10, 0, false},
			{cairn.SearchQuery{Text: "nowhere", Steps: true}, 10, 0, false},
		} {
			n, more, err := counter.CountHits(ctx, c.q, c.max)
			if err != nil || n != c.want || more != c.more {
				t.Errorf("%+v to %d: %d (more %v), %v; want %d (more %v)", c.q, c.max, n, more, err, c.want, c.more)
			}
		}
		if _, _, err := counter.CountHits(ctx, cairn.SearchQuery{Text: "   "}, 10); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Fatalf("an empty query: %v", err)
		}
	})
}
