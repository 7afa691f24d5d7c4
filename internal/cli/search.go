package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/redact"
)

func (m *Main) runSearch(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("search", "[flags] QUERY", `
Find the rounds where something was said or done: user and assistant text,
tool calls (the tool and its input: a command, a path, a pattern) and tool
results (output, error text), the first 100,000 characters of each; not
thinking. Every word must match; a word of three or more characters also
matches the words it begins (auth finds authentication; SQLite stores
match word forms too: tests finds testing), a shorter one only itself, a
word ending in * any word it begins; emoji are words too. A word starting
with - is part of the query unless it is one of the flags below (after --
every argument is). Hits are steps, best first, one per step: ROUND.STEP
(ROUND alone for a round's prompt), which cairn inject SESSION ROUND.STEP
prints. --agent keeps the hits in sessions one
harness wrote (Claude Code, Codex CLI, Gemini CLI or opencode), as cairn
sessions --agent lists them; --role those in the user's words, the
agent's, its tool calls or their output; --tool those in one tool's calls
and output. Words in double quotes must be found one after the other.

Examples:
  cairn search "database migration"
  cairn search --session 5c0375b4 auth
  cairn search "go test" undefined
  cairn search --agent codex "login form"
  cairn search --agent gemini "login form"
  cairn search --role call --tool Bash "go test"
  cairn search '"connection refused"'
  cairn search --since 2026-03-01 --json benchmark`)
	sf.register(fs, true)
	session := fs.String("session", "", "only this session (uuid or prefix)")
	project := fs.String("project", "", "only sessions with this working directory")
	agent := fs.String("agent", "", "only sessions of this harness: "+agentNames)
	since := fs.String("since", "", "only rounds at or after this time")
	until := fs.String("until", "", "only rounds before this time")
	role := fs.String("role", "", "only hits in the user's words (user), the agent's (agent), tool calls (call) or their output (output)")
	tool := fs.String("tool", "", "only hits in this tool's calls and output (Bash, Edit, shell, …)")
	limit := fs.Int("n", 20, "at most this many hits")
	surgical := fs.Bool("surgical", false, "also search the rounds cairn's surgery copied into the sessions it cut (they repeat their sources'); the work done after resuming one is always searched")
	red := redactFlag(fs)
	if err := parseInterspersed(fs, queryArgs(fs, args)); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return usageError("search needs a QUERY")
	}
	q := cairn.SearchQuery{Text: strings.Join(fs.Args(), " "), Project: *project, Tool: *tool, Limit: *limit, NoSurgery: !*surgical, Steps: true}
	var err error
	if *role != "" {
		if q.Kinds, err = cairn.RoleKinds(*role); err != nil {
			return usageError("%s", cairn.ErrorMessage(err))
		}
	}
	if q.Agent, err = parseAgent(*agent); err != nil {
		return err
	}
	if q.Since, err = parseWhen(*since); err != nil {
		return err
	}
	if q.Until, err = parseWhen(*until); err != nil {
		return err
	}
	return m.redacted(*red, func() error {
		st, err := m.readStoreCache(sf.store, searchReadCache)
		if err != nil {
			return err
		}
		defer st.Close()
		if *session != "" {
			s, err := st.sessions.FindSessionByID(ctx, *session)
			if err != nil {
				return err
			}
			q.SessionID = s.ID
		}
		var r *redact.Redactor
		searcher := st.searcher
		if *red {
			if r, err = redact.New(); err != nil {
				return fmt.Errorf("redaction rules: %w", err)
			}
			searcher = redactedSearcher{searcher, r}
		}
		hits, err := searcher.Search(ctx, q)
		if err != nil {
			return err
		}
		if *red {
			var found []redact.Finding
			if hits, found = redactHits(r, q.Text, hits); len(found) > 0 {
				fmt.Fprintf(m.Stderr, "redacted %s in snippets\n", countRules(found))
			}
		}
		var suggest string
		// A redacted view suggests nothing: the prefixes of a secret
		// would find it.
		if len(hits) == 0 && !*red {
			if suggest, err = prefixSuggestion(ctx, st.searcher, q); err != nil {
				return err
			}
		}
		if sf.json {
			hl := highlighter("**", "**")
			for _, h := range hits {
				h.Snippet = hl.Replace(h.Snippet)
			}
			out := map[string]any{"query": q.Text, "hits": orEmpty(hits)}
			if suggest != "" {
				out["suggest"] = suggest
			}
			return json.NewEncoder(m.Stdout).Encode(out)
		}
		if len(hits) == 0 {
			where := ""
			if q.Agent != "" {
				where = " in " + q.Agent + "'s sessions"
			}
			fmt.Fprintf(m.Stdout, "No round matches %q%s.\n", q.Text, where)
			if suggest != "" {
				fmt.Fprintf(m.Stdout, "Words that begin so do match: cairn search '%s'\n", suggest)
			}
			return nil
		}
		hl := highlighter("**", "**")
		if isTerminal(m.Stdout) {
			hl = highlighter("\033[1;33m", "\033[0m")
		}
		width := 0
		for _, h := range hits {
			width = max(width, len(h.Ref))
		}
		for _, h := range hits {
			kind := string(h.Kind)
			if h.Tool != "" {
				kind += " " + h.Tool
			}
			fmt.Fprintf(m.Stdout, "%s  %-*s  %s  %s\n    %s\n", h.SessionID, width, h.Ref, h.Timestamp.Format(export.IndexTimeFormat),
				kind, hl.Replace(strings.Join(strings.Fields(h.Snippet), " ")))
		}
		noun := "hits"
		if len(hits) == 1 {
			noun = "hit"
		}
		fmt.Fprintf(m.Stdout, "\n%d %s. Read one: cairn inject SESSION ROUND.STEP (a step) or cairn show SESSION ROUND\n", len(hits), noun)
		return nil
	})
}

// searchReadCache is the page cache of a search, in KiB: it reads a few
// hundred pages once, and a process that exits soon spends less reusing
// 16 pages than faulting fresh memory in for 500 (whole processes on the
// 1 GB bench store: 3-6 ms less CPU of 55-62).
const searchReadCache = 64

// highlighter replaces a snippet's highlight markers with on and off.
// Built once per search: a replacer of single bytes is a 256-entry table.
func highlighter(on, off string) *strings.Replacer {
	return strings.NewReplacer(cairn.HighlightStart, on, cairn.HighlightEnd, off)
}

// prefixSuggestion returns q's words each as a prefix ("auth" → "auth*")
// when that query finds a round and q found none, else "": whole words
// are what a search matches, and a person often types the start of one.
func prefixSuggestion(ctx context.Context, s cairn.Searcher, q cairn.SearchQuery) (string, error) {
	words := cairn.QueryWords(q.Text)
	changed := false
	for i, w := range words {
		if !strings.HasSuffix(w, "*") && strings.IndexFunc(w, func(r rune) bool { return cairn.IsCJK(r) || cairn.IsEmoji(r) }) < 0 {
			words[i], changed = w+"*", true
		}
	}
	if !changed {
		return "", nil
	}
	q.Text, q.Limit = strings.Join(words, " "), 1
	hits, err := s.Search(ctx, q)
	if err != nil || len(hits) == 0 {
		return "", err
	}
	return q.Text, nil
}
