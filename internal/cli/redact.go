package cli

import (
	"context"
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/redact"
)

// redactUsage is --redact's help, the same on every command.
const redactUsage = "replace secrets (API keys, tokens, passwords, passwords in URLs; gitleaks' rules and cairn's) with [REDACTED:rule] in what is written; the store is unchanged"

// redactFlag registers --redact, which commands that write history out
// share.
func redactFlag(fs *flag.FlagSet) *bool { return fs.Bool("redact", false, redactUsage) }

// redactLines replaces secrets in each line of a session about to be
// written (each value of a JSON line alone, so a JSON line stays one) and
// says how many on stderr.
func (m *Main) redactLines(lines [][]byte) ([][]byte, error) {
	r, err := redact.New()
	if err != nil {
		return nil, fmt.Errorf("redaction rules: %w", err)
	}
	var all []redact.Finding
	out := make([][]byte, len(lines))
	for i, l := range lines {
		s, found := r.Values(string(l))
		out[i], all = []byte(s), append(all, found...)
	}
	if len(all) > 0 {
		fmt.Fprintf(m.Stderr, "redacted %s\n", countRules(all))
	}
	return out, nil
}

// redacted runs run with m.Stdout replaced, when on, by a writer that
// replaces secrets before they reach the real one, and says on stderr how
// many were replaced, by rule.
func (m *Main) redacted(on bool, run func() error) error {
	if !on {
		return run()
	}
	r, err := redact.New()
	if err != nil {
		return fmt.Errorf("redaction rules: %w", err)
	}
	var found []redact.Finding
	stdout := m.Stdout
	w := r.Writer(stdout, &found)
	m.Stdout = w
	err = run()
	m.Stdout = stdout
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if len(found) > 0 {
		fmt.Fprintf(m.Stderr, "redacted %s\n", countRules(found))
	}
	return err
}

// lineRedactor returns what replaces secrets in a raw line on its way into
// a store (import --redact, migrate --redact, hooks with $CAIRN_REDACT),
// or nil when off. A line without secrets comes back as it was.
func lineRedactor(on bool) (func([]byte) []byte, error) {
	if !on {
		return nil, nil
	}
	r, err := redact.New()
	if err != nil {
		return nil, fmt.Errorf("redaction rules: %w", err)
	}
	return func(raw []byte) []byte {
		if s, found := r.ValueSecrets(string(raw)); len(found) > 0 {
			return []byte(s)
		}
		return raw
	}, nil
}

// redactingWriter wraps w, when on, so what is written to it leaves
// without secrets once it is closed; the findings go to found.
func redactingWriter(on bool, w io.Writer, found *[]redact.Finding) (io.WriteCloser, error) {
	if !on {
		return nopCloser{w}, nil
	}
	r, err := redact.New()
	if err != nil {
		return nil, fmt.Errorf("redaction rules: %w", err)
	}
	return r.Writer(w, found), nil
}

// redactHits returns the hits a redacted view shows: none for a query
// that holds a secret, and of the others those whose snippet, redacted
// with its markers taken out ([redact.Redactor.Snippet]), still shows a
// match outside every secret, so that searching a redacted view never
// finds a secret by its text. The CLI's search --redact, the viewer beyond
// loopback and the MCP server with --redact share it. found are the
// secrets replaced in the snippets shown.
func redactHits(r *redact.Redactor, query string, hits []*cairn.Hit) (_ []*cairn.Hit, found []redact.Finding) {
	if len(r.Find(query)) > 0 {
		return nil, nil
	}
	out := hits[:0]
	for _, h := range hits {
		s, f, ok := r.Snippet(h.Snippet, cairn.HighlightStart, cairn.HighlightEnd)
		if !ok {
			continue
		}
		h.Snippet, found = s, append(found, f...)
		out = append(out, h)
	}
	return out, found
}

// redactedSearcher is a searcher for a redacted view: a block a query
// matched only through a secret is no hit, wherever the secret lies in it
// ([redact.Redactor.Found]); redactHits then redacts the snippets shown.
type redactedSearcher struct {
	cairn.Searcher
	r *redact.Redactor
}

func (s redactedSearcher) Search(ctx context.Context, q cairn.SearchQuery) ([]*cairn.Hit, error) {
	words := cairn.QueryWords(q.Text)
	q.Accept = func(text string) bool { return s.r.Found(text, words) }
	return s.Searcher.Search(ctx, q)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// countRules says how many secrets were found, by rule: "3 secrets
// (aws-access-token 2, generic-api-key 1)".
func countRules(found []redact.Finding) string {
	by := map[string]int{}
	for _, f := range found {
		by[f.Rule]++
	}
	rules := make([]string, 0, len(by))
	for r, n := range by {
		rules = append(rules, fmt.Sprintf("%s %d", r, n))
	}
	sort.Strings(rules)
	noun := "secrets"
	if len(found) == 1 {
		noun = "secret"
	}
	return fmt.Sprintf("%d %s (%s)", len(found), noun, strings.Join(rules, ", "))
}
