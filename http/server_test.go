package http_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
)

// The sample transcripts: four main sessions and one subagent.
const (
	samples   = "../testdata/claudecode"
	sessionA  = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"
	sessionB  = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02" // spawns a subagent
	subagentB = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02-agent-a85e3082ea2cdf73b"
)

// Store is a store opened for a test, with the services the server uses.
type Store struct {
	DB       *sqlite.DB
	Sessions *sqlite.SessionStore
	Rounds   *sqlite.RoundStore
	Searcher *sqlite.Searcher
	Frames   *sqlite.FrameStore
	Tags     *sqlite.TagStore
	Lines    *sqlite.LineStore
	// Engagements holds the engagement phases the matrix's rows go by.
	Engagements *sqlite.EngagementStore

	importer *inscribe.Importer
	exports  string // the folder exported sessions are written to
}

// MustOpenStore opens a store in a temporary folder and imports the
// sample transcripts into it.
func MustOpenStore(tb testing.TB) *Store {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	st := &Store{DB: db, Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db),
		Searcher: sqlite.NewSearcher(db), Frames: sqlite.NewFrameStore(db), Tags: sqlite.NewTagStore(db),
		Lines: sqlite.NewLineStore(db), Engagements: sqlite.NewEngagementStore(db), exports: tb.TempDir()}
	st.importer = &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), st.Lines}, Format: claudecode.Format{}}
	rep, err := st.importer.Import(context.Background(), []string{samples})
	if err != nil {
		tb.Fatal(err)
	} else if rep.Failed > 0 {
		tb.Fatalf("import: %d files failed", rep.Failed)
	}
	return st
}

// Export writes m as a Claude Code session in a temporary folder and
// registers it, as cmd/cairn does under ~/.claude/projects.
func (st *Store) Export(ctx context.Context, m *cairn.Materialization) (*cairnhttp.Exported, error) {
	id := claudecode.NewUUID()
	x := &claudecode.Exporter{SessionID: id, Cwd: m.Sources[0].Project}
	lines, err := x.Lines(m)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(st.exports, id+".jsonl")
	if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
		return nil, err
	}
	if fr, problems := st.importer.ImportFile(ctx, path); fr.Error != "" || len(problems) > 0 {
		return nil, fmt.Errorf("register %s: %s %v", path, fr.Error, problems)
	}
	var parents []string
	for _, s := range m.Sources {
		parents = append(parents, s.ID)
	}
	if err := st.Sessions.SetLineage(ctx, id, cairn.LineageSurgery, parents, m.Operation, m.Recipe()); err != nil {
		return nil, err
	}
	return &cairnhttp.Exported{ID: id, Path: path, Parents: parents, Resume: "claude --resume " + id}, nil
}

// Serve points s at the store's services.
func (st *Store) Serve(s *cairnhttp.Server) {
	s.Sessions, s.Rounds, s.Searcher, s.Frames = st.Sessions, st.Rounds, st.Searcher, st.Frames
	s.Tags, s.Lines, s.Export, s.Engagements = st.Tags, st.Lines, st.Export, st.Engagements
}

// MustOpenServer starts a server on 127.0.0.1:0 over a store holding the
// sample transcripts.
func MustOpenServer(tb testing.TB) (*cairnhttp.Server, *Store) {
	tb.Helper()
	st := MustOpenStore(tb)
	s := cairnhttp.NewServer()
	st.Serve(s)
	MustOpen(tb, s)
	return s, st
}

// MustOpen opens s on 127.0.0.1:0 unless Addr is set, and closes it when
// the test ends.
func MustOpen(tb testing.TB, s *cairnhttp.Server) {
	tb.Helper()
	if s.Addr == "" {
		s.Addr = "127.0.0.1:0"
	}
	if err := s.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
}

// Do sends a request to s and returns the status and body. Mutating
// requests carry the CSRF header unless header says otherwise.
func Do(tb testing.TB, s *cairnhttp.Server, method, path, body string, header ...string) (int, string) {
	tb.Helper()
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, s.URL()+path, r)
	if err != nil {
		tb.Fatal(err)
	}
	if method != http.MethodGet {
		req.Header.Set(cairnhttp.CSRFHeader, "1")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if header[i+1] == "" {
			req.Header.Del(header[i])
		} else if header[i] == "Host" {
			req.Host = header[i+1]
		} else {
			req.Header.Set(header[i], header[i+1])
		}
	}
	client := &http.Client{Timeout: 30 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatal(err)
	}
	defer resp.Body.Close()
	buf, err := io.ReadAll(resp.Body)
	if err != nil {
		tb.Fatal(err)
	}
	return resp.StatusCode, string(buf)
}

// MustGet gets path, wants 200 and decodes the JSON body into v.
func MustGet(tb testing.TB, s *cairnhttp.Server, path string, v any) {
	tb.Helper()
	code, body := Do(tb, s, http.MethodGet, path, "")
	if code != http.StatusOK {
		tb.Fatalf("GET %s: %d %s", path, code, body)
	}
	if err := json.Unmarshal([]byte(body), v); err != nil {
		tb.Fatalf("GET %s: %v in %s", path, err, body)
	}
}

// WantError checks that a request fails with status and a JSON error
// whose message contains want.
func WantError(tb testing.TB, s *cairnhttp.Server, method, path, body string, status int, want string, header ...string) {
	tb.Helper()
	code, got := Do(tb, s, method, path, body, header...)
	var e cairnhttp.ErrorResponse
	if err := json.Unmarshal([]byte(got), &e); err != nil {
		tb.Fatalf("%s %s: body is not a JSON error: %q", method, path, got)
	}
	if code != status || !strings.Contains(e.Error, want) {
		tb.Fatalf("%s %s: got %d %q, want %d with %q", method, path, code, e.Error, status, want)
	}
}

func TestErrorStatusCode(t *testing.T) {
	for _, c := range []struct {
		code string
		want int
	}{
		{cairn.ENOTFOUND, 404}, {cairn.EINVALID, 400}, {cairn.ECONFLICT, 409}, {cairn.EINTERNAL, 500}, {"unknown", 500},
	} {
		if got := cairnhttp.ErrorStatusCode(c.code); got != c.want {
			t.Errorf("ErrorStatusCode(%q) = %d, want %d", c.code, got, c.want)
		}
	}
}

func TestServer_UI(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		for path, want := range map[string]string{"/": "<title>cairn</title>", "/app.js": "X-Cairn", "/style.css": "mark",
			"/render.js": "markdown", "/round.js": "cairn.Steps", "/find.js": "queryWords", "/keys.js": "keydown",
			"/theme.js": "prefers-color-scheme", "/palette.js": "fuzzy", "/copy.js": "clipboard", "/favicon.svg": "<svg", "/favicon.ico": "<svg"} {
			if code, body := Do(t, s, "GET", path, ""); code != 200 || !strings.Contains(body, want) {
				t.Errorf("GET %s: %d, want 200 with %q", path, code, want)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		// Paths with dot segments are redirected to their clean form first.
		if code, _ := Do(t, s, "GET", "/../../etc/passwd", ""); code != 307 {
			t.Errorf("GET /../../etc/passwd: %d, want a redirect to /etc/passwd", code)
		}
		for _, path := range []string{"/nope.html", "/etc/passwd", "/%2e%2e/go.mod", "/ui.go", "/ui/ui.go"} {
			if code, _ := Do(t, s, "GET", path, ""); code != 404 {
				t.Errorf("GET %s: %d, want 404", path, code)
			}
		}
		WantError(t, s, "GET", "/api/nothing", "", 404, "No API endpoint")
	})
	t.Run("ErrMethod", func(t *testing.T) {
		WantError(t, s, "POST", "/", "{}", 405, "Method not allowed")
	})
	t.Run("Headers", func(t *testing.T) {
		req, _ := http.NewRequest("GET", s.URL()+"/api/sessions", nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		for k, want := range map[string]string{"Content-Type": "application/json", "X-Frame-Options": "DENY", "Access-Control-Allow-Origin": ""} {
			if got := resp.Header.Get(k); got != want {
				t.Errorf("%s: %q, want %q", k, got, want)
			}
		}
		if csp := resp.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'self'") {
			t.Errorf("Content-Security-Policy %q", csp)
		}
	})
}

// Reopen opens the store's file again, as another process would: its own
// connection, nothing shared in memory.
func (st *Store) Reopen(tb testing.TB) *Store {
	tb.Helper()
	db := sqlite.NewDB(st.DB.Path)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	other := &Store{DB: db, Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db),
		Searcher: sqlite.NewSearcher(db), Frames: sqlite.NewFrameStore(db), Tags: sqlite.NewTagStore(db),
		Lines: sqlite.NewLineStore(db), Engagements: sqlite.NewEngagementStore(db), exports: tb.TempDir()}
	other.importer = &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), other.Lines}, Format: claudecode.Format{}}
	return other
}
