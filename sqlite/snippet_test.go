package sqlite_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"

	"github.com/klauspost/compress/zstd"
)

// snippetSession inscribes a session of n rounds, each one line of about
// 57 KB holding one assistant text (a view of its line) that ends with
// "needle" and its round's own marker, so that a chunk holds a few lines
// and a snippet is cut from the end of its text. It returns the texts by
// round.
func snippetSession(tb testing.TB, db *sqlite.DB, id string, n int) []string {
	tb.Helper()
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: "/src/p"}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	texts := make([]string, n+1)
	for i := 1; i <= n; i++ {
		text := strings.Repeat(fmt.Sprintf("filler %d \"quoted\"\n", i), 3000) + fmt.Sprintf("needle marker%03d", i)
		texts[i] = text
		raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", i, text)
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: i, StartedAt: at, EndedAt: at, FirstLine: i, LastLine: i})
		in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: i, Offset: in.Source.Offset, Raw: []byte(raw),
			Type: "assistant", UUID: fmt.Sprintf("u-%d", i), Timestamp: at, RoundSeq: i, Status: cairn.LineOK})
		in.Source.Offset += int64(len(raw))
		in.Source.Lines++
		in.Blocks = append(in.Blocks, &cairn.Block{SessionID: id, RoundSeq: i, LineNo: i, Role: "assistant", Kind: cairn.AssistantText, Timestamp: at, Content: text})
	}
	if err := sqlite.NewInscriptionStore(db).Inscribe(context.Background(), in); err != nil {
		tb.Fatal(err)
	}
	return texts
}

// TestSearch_SnippetsFromChunks: the snippets of hits whose texts are
// views of lines, several to a chunk and read in one pass over it (each
// decompressed only as far as its text), are those cut from the texts
// themselves, for hits in every chunk of a session and in two sessions,
// read on one core or with chunks decompressed beside the reads.
func TestSearch_SnippetsFromChunks(t *testing.T) {
	t.Run("zstd", func(t *testing.T) { testSnippetsFromChunks(t) })
	// S2 chunks are read whole, not as a stream.
	t.Run("S2", func(t *testing.T) {
		defer sqlite.SetS2Chunks()()
		testSnippetsFromChunks(t)
	})
}

func testSnippetsFromChunks(t *testing.T) {
	db := MustOpenDB(t)
	a := snippetSession(t, db, "5ea7c400-0000-4000-8000-00000000000a", 12)
	b := snippetSession(t, db, "5ea7c400-0000-4000-8000-00000000000b", 12)
	var chunks, views int
	raw, err := sql.Open("sqlite", db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM chunks), (SELECT COUNT(*) FROM blocks WHERE span IS NOT NULL)`).Scan(&chunks, &views); err != nil {
		t.Fatal(err)
	}
	if chunks < 6 || views != 24 {
		t.Fatalf("%d chunks, %d views: the test needs several lines to a chunk, several chunks, every text a view", chunks, views)
	}
	// One core reads and decompresses; more decompress beside the reads.
	for _, procs := range []int{1, 2, 8} {
		t.Run(fmt.Sprintf("GOMAXPROCS=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			hits, err := sqlite.NewSearcher(db).Search(context.Background(), cairn.SearchQuery{Text: "needle", Limit: 30})
			if err != nil {
				t.Fatal(err)
			}
			if len(hits) != 24 {
				t.Fatalf("%d hits, want 24", len(hits))
			}
			for _, h := range hits {
				texts := a
				if strings.HasSuffix(h.SessionID, "b") {
					texts = b
				}
				want := cairn.Snippet(texts[h.RoundSeq], []string{"needle*"}, 24)
				if h.Snippet != want || !strings.Contains(h.Snippet, fmt.Sprintf("marker%03d", h.RoundSeq)) {
					t.Errorf("%s round %d: snippet %q, want %q", h.SessionID, h.RoundSeq, h.Snippet, want)
				}
			}
		})
	}
}

// TestSearch_SnippetOfShortChunk: a chunk whose data ends before the text
// a hit views (its bytes replaced by a shorter frame) fails the search
// with a damage that names the session and its lines, not a panic or a
// wrong snippet, whichever goroutine decompresses it.
func TestSearch_SnippetOfShortChunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := MustOpenDBAt(t, path)
	id := "5ea7c400-0000-4000-8000-00000000000c"
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	snippetSession(t, db, id, 3)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	short := enc.EncodeAll([]byte("too short"), nil)
	if _, err := raw.Exec(`UPDATE chunks SET data = ?`, short); err != nil {
		t.Fatal(err)
	}
	for _, procs := range []int{1, 2} {
		runtime.GOMAXPROCS(procs)
		_, err = sqlite.NewSearcher(db).Search(context.Background(), cairn.SearchQuery{Text: "needle"})
		var ce *cairn.Error
		if !errors.As(err, &ce) || ce.Err == nil || !strings.Contains(ce.Message, id+": lines 1–3") || !strings.Contains(ce.Err.Error(), "ends before byte") {
			t.Errorf("GOMAXPROCS=%d: search of a short chunk: %v, want a damage naming session %s, lines 1–3, its data too short", procs, err, id)
		}
	}
}
