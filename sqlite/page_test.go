package sqlite_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"

	"github.com/klauspost/compress/zstd"
)

// pageSession inscribes a session of one round whose one line holds a
// short text, a long text with escapes and characters of several bytes,
// a long tool call (its input the line's bytes themselves) and a short
// text again, each a view of the line, and returns the blocks' texts.
func pageSession(tb testing.TB, db *sqlite.DB, id string) []string {
	tb.Helper()
	long := strings.Repeat("line \"quoted\"\tté 日本 \x1b[31mred\x1b[0m\n", 40_000)
	input := `{"command":"` + strings.Repeat("echo a long command; ", 60_000) + `"}`
	first, last := "the first text of the line", "the last text of the line, after the long ones"
	texts := []string{first, long, input, last}
	q := func(s string) string {
		b, err := json.Marshal(s)
		if err != nil {
			tb.Fatal(err)
		}
		return string(b)
	}
	raw := `{"type":"assistant","message":{"content":[{"type":"text","text":` + q(first) + `},{"type":"text","text":` + q(long) +
		`},{"type":"tool_use","id":"t1","name":"Bash","input":` + input + `},{"type":"text","text":` + q(last) + `}]}}` + "\n"
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: "/src/p"}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl", Offset: int64(len(raw)), Lines: 1}}
	in.Rounds = []*cairn.Round{{SessionID: id, Seq: 1, StartedAt: at, EndedAt: at, FirstLine: 1, LastLine: 1}}
	in.Lines = []*cairn.Line{{SessionID: id, No: 1, Raw: []byte(raw), Type: "assistant", UUID: "u-1", Timestamp: at, RoundSeq: 1, Status: cairn.LineOK}}
	for i, text := range texts {
		b := &cairn.Block{SessionID: id, RoundSeq: 1, LineNo: 1, Index: i, Role: "assistant", Kind: cairn.AssistantText, Timestamp: at, Content: text}
		if i == 2 {
			b.Kind, b.ToolName, b.ToolID = cairn.ToolUse, "Bash", "t1"
		}
		in.Blocks = append(in.Blocks, b)
	}
	if err := sqlite.NewInscriptionStore(db).Inscribe(context.Background(), in); err != nil {
		tb.Fatal(err)
	}
	return texts
}

// TestFindRoundPage_Views: a page's texts that view a line longer than
// any of them are the texts themselves, or their first page.Bytes with
// their full size, whether the line's chunk is streamed (read as far as
// the page needs, long texts unquoted a window at a time), cached, or of
// S2 (read whole), and a page stops before the text that would pass its
// bytes.
func TestFindRoundPage_Views(t *testing.T) {
	for _, c := range []struct {
		name          string
		s2, cached    bool
		whole, window int
	}{
		{name: "zstd"},
		{name: "zstd in windows of 7 bytes", whole: 1024, window: 7},
		{name: "cached", cached: true},
		{name: "S2", s2: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.s2 {
				defer sqlite.SetS2Chunks()()
			}
			if c.window > 0 {
				defer sqlite.SetSpanWhole(c.whole, c.window)()
			}
			db := MustOpenDB(t)
			id := "9a9e0000-0000-4000-8000-000000000001"
			texts := pageSession(t, db, id)
			ctx := context.Background()
			raw, err := sql.Open("sqlite", db.Path)
			if err != nil {
				t.Fatal(err)
			}
			defer raw.Close()
			var views int
			if err := raw.QueryRow(`SELECT COUNT(*) FROM blocks WHERE span IS NOT NULL`).Scan(&views); err != nil {
				t.Fatal(err)
			}
			if views != len(texts) {
				t.Fatalf("%d of %d texts are views: the test needs all of them", views, len(texts))
			}
			if c.cached {
				if _, err := sqlite.NewLineStore(db).FindLines(ctx, id, 1, 1); err != nil {
					t.Fatal(err)
				}
			}
			rounds := sqlite.NewRoundStore(db)
			for _, page := range []cairn.BlockPage{{Limit: 10, Bytes: 8 << 20}, {Limit: 10, Bytes: 100}, {From: 1, Limit: 10, Bytes: 100}, {From: 3, Limit: 1, Bytes: 100}} {
				r, total, err := rounds.FindRoundPage(ctx, id, 1, page)
				if err != nil {
					t.Fatal(err)
				}
				if total != len(texts) {
					t.Fatalf("%+v: %d blocks in all, want %d", page, total, len(texts))
				}
				var want []string
				var sizes []int
				size := 0
				for _, text := range texts[page.From:] {
					if page.Full(len(want), size, len(text)) {
						break
					}
					b := &cairn.Block{Content: text}
					page.Cut(b, len(text))
					want, sizes, size = append(want, b.Content), append(sizes, b.Size), size+len(b.Content)
				}
				if len(r.Blocks) != len(want) {
					t.Fatalf("%+v: %d blocks, want %d", page, len(r.Blocks), len(want))
				}
				for i, b := range r.Blocks {
					if b.Content != want[i] || b.Size != sizes[i] {
						t.Errorf("%+v: block %d is %d bytes (%.30q…), size %d; want %d bytes (%.30q…), size %d",
							page, page.From+i, len(b.Content), b.Content, b.Size, len(want[i]), want[i], sizes[i])
					}
				}
			}
		})
	}
}

// TestFindRoundPage_ShortChunk: a page whose line's chunk ends before the
// texts it views fails with a damage that names the session and the
// line, for a short text read whole and a long one read as a stream.
func TestFindRoundPage_ShortChunk(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := MustOpenDBAt(t, path)
	id := "9a9e0000-0000-4000-8000-000000000002"
	pageSession(t, db, id)
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE chunks SET data = ?`, enc.EncodeAll([]byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"the first`), nil)); err != nil {
		t.Fatal(err)
	}
	for _, from := range []int{0, 1} {
		_, _, err := sqlite.NewRoundStore(db).FindRoundPage(context.Background(), id, 1, cairn.BlockPage{From: from, Limit: 10, Bytes: 100})
		var ce *cairn.Error
		if !errors.As(err, &ce) || ce.Err == nil || !strings.Contains(ce.Message, id+": lines 1–1") || !strings.Contains(ce.Err.Error(), "ends before byte") {
			t.Errorf("a page from block %d of a short chunk: %v, want a damage naming session %s, line 1, its data too short", from, err, id)
		}
	}
}

// TestFindRoundPage_Staged: blocks another import staged in a round
// (written, not yet published) are neither counted nor paged, whereas a
// session with nothing staged is paged without looking for them.
func TestFindRoundPage_Staged(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := MustOpenDBAt(t, path)
	id := "9a9e0000-0000-4000-8000-000000000003"
	texts := pageSession(t, db, id)
	ctx := context.Background()
	rounds := sqlite.NewRoundStore(db)
	if r, total, err := rounds.FindRoundPage(ctx, id, 1, cairn.BlockPage{From: 3, Limit: 10, Bytes: 100}); err != nil || total != len(texts) || len(r.Blocks) != 1 {
		t.Fatalf("before staging: %v, %d blocks in all; want %d, 1 paged", err, total, len(texts))
	}
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`INSERT INTO blocks (session_num, round_seq, line_no, idx, role, kind, timestamp, content, searchable)
		SELECT num, 1, 1, 9, 'assistant', 'text', 0, 'staged words', 1 FROM session_nums WHERE session_id = ?`, id); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`INSERT INTO staged_blocks (session_num, token, lo, hi) SELECT session_num, 'other', MAX(id), MAX(id) FROM blocks`); err != nil {
		t.Fatal(err)
	}
	r, total, err := rounds.FindRoundPage(ctx, id, 1, cairn.BlockPage{From: 3, Limit: 10, Bytes: 100})
	if err != nil || total != len(texts) || len(r.Blocks) != 1 || r.Blocks[0].Content == "staged words" {
		t.Fatalf("with a block staged: %v, %d blocks in all, %d paged; want %d, 1 paged, not the staged one", err, total, len(r.Blocks), len(texts))
	}
}
