package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	insc "github.com/cairn-dev/cairn/inscribe"
)

// A compileCounter counts the statements SQLite compiles through the DBs
// opened while it is installed: each text a connection runs (an Exec or
// Query given text) or prepares. A statement run again through a kept
// *sql.Stmt is not compiled again.
type compileCounter struct {
	mu    sync.Mutex
	texts []string
	conns int // connections opened
}

var (
	countingOnce sync.Once
	counting     *compileCounter // the counter the "sqlite-counted" driver adds to
	countingMu   sync.Mutex
)

// countCompiles makes the DBs opened until the test ends count what they
// compile.
func countCompiles(t *testing.T) *compileCounter {
	countingOnce.Do(func() {
		probe, err := sql.Open("sqlite", "")
		if err != nil {
			panic(err)
		}
		sql.Register("sqlite-counted", countingDriver{probe.Driver()})
		probe.Close()
	})
	countingMu.Lock()
	c := &compileCounter{}
	counting, driverName = c, "sqlite-counted"
	t.Cleanup(func() {
		counting, driverName = nil, "sqlite"
		countingMu.Unlock()
	})
	return c
}

func (c *compileCounter) add(query string) {
	if c == nil {
		return
	}
	c.mu.Lock()
	c.texts = append(c.texts, strings.Join(strings.Fields(query), " "))
	c.mu.Unlock()
}

// take returns what was compiled since it was last called.
func (c *compileCounter) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.texts
	c.texts = nil
	return out
}

type countingDriver struct{ driver.Driver }

func (d countingDriver) Open(name string) (driver.Conn, error) {
	conn, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	if c := counting; c != nil {
		c.mu.Lock()
		c.conns++
		c.mu.Unlock()
	}
	return countingConn{conn, counting}, nil
}

// countingConn passes every call on to modernc's connection, counting
// the texts it compiles.
type countingConn struct {
	driver.Conn
	c *compileCounter
}

func (c countingConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	c.c.add(q)
	return c.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (c countingConn) BeginTx(ctx context.Context, o driver.TxOptions) (driver.Tx, error) {
	return c.Conn.(driver.ConnBeginTx).BeginTx(ctx, o)
}

func (c countingConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	c.c.add(q)
	return c.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (c countingConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	c.c.add(q)
	return c.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (c countingConn) ResetSession(ctx context.Context) error {
	if r, ok := c.Conn.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

// TestLiveImport_Compiles: a hook's live import of one round appended to
// a stored session, with its rounds tagged, compiles each statement it
// runs once, and no more statements than it needs: a hook's process
// compiles every one afresh (modernc's SQLite: 20 to 300 µs each), and
// they were a third of a Stop hook's import on a 1 GB store.
func TestLiveImport_Compiles(t *testing.T) {
	ctx := context.Background()
	counter := countCompiles(t)
	_, path, appendRound, importer := liveImported(t)
	appendRound()
	im, done := importer()
	defer done()
	counter.take()
	rep, err := im.Import(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Files[0]; f.Status != insc.StatusAppended || f.Rounds != 4 || f.Last == nil || f.Last.Seq != 4 || f.Last.UserPreview != "prompt d" {
		t.Fatalf("import: %+v, want 4 rounds appended, the last one's", f)
	}
	compiled := counter.take()
	seen := map[string]int{}
	for _, q := range compiled {
		seen[q]++
	}
	for q, n := range seen {
		if n > 1 {
			t.Errorf("compiled %d times: %s", n, q)
		}
	}
	const most = 31
	if len(compiled) > most {
		t.Errorf("a one-round live import compiled %d statements, want at most %d:\n%s", len(compiled), most, strings.Join(compiled, "\n"))
	}
	t.Logf("%d statements compiled", len(compiled))
}

// liveImported writes a growing transcript (growingTranscript) in a new
// folder and imports it live into s.db there: it returns the folder, the
// transcript's path, what appends its next round and the importer of
// each later import (liveImporter).
func liveImported(t *testing.T) (string, string, func(), func() (*insc.Importer, func())) {
	dir := t.TempDir()
	path, appendRound := growingTranscript(t, dir)
	importer := liveImporter(t, dir)
	im, done := importer()
	defer done()
	if _, err := im.Import(context.Background(), []string{path}); err != nil {
		t.Fatal(err)
	}
	return dir, path, appendRound, importer
}

// liveImporter returns a function that opens the store s.db in dir and
// returns a live importer of Claude Code transcripts into it, tagging
// rounds with frame f1, and what closes the store: each import in a DB
// of its own, as each hook has its process.
func liveImporter(t *testing.T, dir string) func() (*insc.Importer, func()) {
	return func() (*insc.Importer, func()) {
		db := NewDB(filepath.Join(dir, "s.db"))
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		st := struct {
			*InscriptionStore
			*LineStore
		}{NewInscriptionStore(db), NewLineStore(db)}
		return &insc.Importer{Store: st, Format: claudecode.Format{}, Live: true,
			Tag: func(*cairn.Session) (string, string) { return "", "f1" }}, func() { db.Close() }
	}
}

// TestLiveImport_ReadsChunksOnce: a live import of one round appended
// reads the chunks of the round it grows once, to rebuild that round:
// the views of its new blocks and the search entries of the old ones it
// retires take those lines' bytes from the importer
// (cairn.Inscription.Stored), not from the store again (each read a
// statement compiled in a hook's process, and a chunk decompressed).
// The retired entries are still the ones deleted: a search finds each
// round's answer once.
func TestLiveImport_ReadsChunksOnce(t *testing.T) {
	ctx := context.Background()
	counter := countCompiles(t)
	old := viewMin
	viewMin = 4 // the rounds' blocks are viewed: their text is read from their lines
	t.Cleanup(func() { viewMin = old })
	dir, path, appendRound, importer := liveImported(t)
	for range 2 {
		appendRound()
		im, done := importer()
		counter.take()
		if _, err := im.Import(ctx, []string{path}); err != nil {
			t.Fatal(err)
		}
		var reads []string
		for _, q := range counter.take() {
			if strings.HasPrefix(q, "SELECT") && strings.Contains(q, "FROM chunks") {
				reads = append(reads, q)
			}
		}
		if len(reads) != 1 {
			t.Errorf("a one-round live import read chunks with %d statements, want 1:\n%s", len(reads), strings.Join(reads, "\n"))
		}
		done()
	}
	db := NewDB(filepath.Join(dir, "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	hits, err := NewSearcher(db).Search(ctx, cairn.SearchQuery{Text: "answer", Limit: 20})
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 5 {
		t.Errorf("search for answer: %d hits, want 5 (one a round)", len(hits))
	}
}

// growingTranscript writes a Claude Code transcript of three rounds in
// dir, and returns its path and a function that appends the next round.
func growingTranscript(t *testing.T, dir string) (string, func()) {
	t.Helper()
	path := filepath.Join(dir, "s.jsonl")
	const id = "0f0e0d0c-0b0a-4909-8807-060504030201"
	line := func(i int, typ string) string {
		at := time.Date(2026, 1, 1, 0, i, 0, 0, time.UTC).Format(time.RFC3339)
		if typ == "user" {
			return `{"type":"user","sessionId":"` + id + `","uuid":"u` + string(rune('a'+i)) + `","timestamp":"` + at + `","message":{"role":"user","content":"prompt ` + string(rune('a'+i)) + `"}}` + "\n"
		}
		return `{"type":"assistant","sessionId":"` + id + `","uuid":"a` + string(rune('a'+i)) + `","timestamp":"` + at + `","message":{"id":"msg_` + string(rune('a'+i)) + `","role":"assistant","content":[{"type":"text","text":"answer ` + string(rune('a'+i)) + `"}],"usage":{"input_tokens":10,"output_tokens":20}}}` + "\n"
	}
	var text string
	for i := range 3 {
		text += line(i, "user") + line(i, "assistant")
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	next := 3
	return path, func() {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if _, err := f.WriteString(line(next, "user") + line(next, "assistant")); err != nil {
			t.Fatal(err)
		}
		next++
	}
}
