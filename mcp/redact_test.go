package mcp_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestRedact: with Redact and RedactHits set (cairn mcp --redact, the
// default beyond loopback), no tool's output carries a secret, a
// password in a URL included; a search for a secret's text finds
// nothing, while other words still find its round. Without them the
// secrets are there: the test plants them.
func TestRedact(t *testing.T) {
	s := MustServer(t)
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	aws, pw := "AKIAZ7VRSQ5TKQ2MBXNA", "Tr0ub4dor3"
	prompt := "deploy with key " + aws + " then clone https://alice:" + pw + "@git.example.com/x.git"
	id := "0b1e0000-0000-4000-8000-0000000005ee"
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, fmt.Appendf(nil, `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":%q},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n", prompt, id), 0o644)
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	if rep, err := im.Import(context.Background(), []string{path}); err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v", err)
	}
	s.Rounds, s.Searcher, s.Sessions, s.Lines = sqlite.NewRoundStore(db), sqlite.NewSearcher(db), sqlite.NewSessionStore(db), sqlite.NewLineStore(db)
	calls := []struct {
		tool string
		args map[string]any
	}{
		{"search", map[string]any{"query": "deploy"}},
		{"search", map[string]any{"query": "clone"}},
		{"inject", map[string]any{"session": id, "round": 1}},
	}
	plain := MustConnect(t, s)
	for _, c := range calls {
		if out, _ := call(t, plain, c.tool, c.args); !strings.Contains(out, pw) {
			t.Fatalf("%s %v without redaction lacks the password: the test plants nothing\n%s", c.tool, c.args, out)
		}
	}
	r, _ := redact.New()
	red := *s
	red.Redact = func(text string) string { out, _ := r.String(text); return out }
	red.RedactHits = func(q string, hits []*cairn.Hit) []*cairn.Hit {
		if len(r.Find(q)) > 0 {
			return nil
		}
		out := hits[:0]
		for _, h := range hits {
			if sn, _, ok := r.Snippet(h.Snippet, cairn.HighlightStart, cairn.HighlightEnd); ok {
				h.Snippet = sn
				out = append(out, h)
			}
		}
		return out
	}
	cs := MustConnect(t, &red)
	for _, c := range calls {
		out, _ := call(t, cs, c.tool, c.args)
		if strings.Contains(out, pw) || strings.Contains(out, aws) {
			t.Errorf("%s %v carries a secret:\n%s", c.tool, c.args, out)
		}
		if c.tool == "search" && !strings.Contains(out, id) {
			t.Errorf("%s %v: the round is not found by other words:\n%s", c.tool, c.args, out)
		}
	}
	for _, q := range []string{aws, pw, "alice " + pw, "deploy " + pw} {
		if out, _ := call(t, plain, "search", map[string]any{"query": q}); !strings.Contains(out, id) {
			t.Fatalf("search %q finds nothing without redaction\n%s", q, out)
		}
		// The query is echoed when nothing matches: the caller's own text.
		if out, _ := call(t, cs, "search", map[string]any{"query": q}); strings.Contains(out, id) || !strings.HasPrefix(out, "No round matches") {
			t.Errorf("search %q finds the round by a secret:\n%s", q, out)
		}
	}
}
