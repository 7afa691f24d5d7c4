package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// TestViews_DamagedChunk: a chunk whose bytes no longer decode fails the
// read of the block texts that view its lines with a message naming the
// session and its lines; the rounds of the session's later chunks still
// read.
func TestViews_DamagedChunk(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	importInto(t, path, realTranscripts(t))
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	var session string
	var first, last int
	if err := raw.QueryRow(`SELECT c.session_id, c.first_no, c.last_no FROM chunks c
		WHERE c.codec = 2 AND EXISTS (SELECT 1 FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE n.session_id = c.session_id AND b.line_no BETWEEN c.first_no AND c.last_no AND b.span IS NOT NULL)
		AND EXISTS (SELECT 1 FROM chunks o WHERE o.session_id = c.session_id AND o.id != c.id)
		ORDER BY (SELECT COUNT(*) FROM rounds r WHERE r.session_id = c.session_id) DESC, c.first_no LIMIT 1`).Scan(&session, &first, &last); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(`UPDATE chunks SET data = substr(data, 1, length(data) / 2) WHERE session_id = ? AND first_no = ?`, session, first); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	st := stores(db)
	_, err = st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: session, WithBlocks: true})
	msg := cairn.ErrorMessage(err)
	if want := "session " + session + ": lines "; !strings.Contains(msg, want) || !strings.Contains(msg, "damaged") {
		t.Fatalf("reading a damaged chunk's views: %q, want it to name %q", msg, want)
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: session})
	if err != nil {
		t.Fatal(err)
	}
	read := 0
	for _, r := range rounds {
		if r.FirstLine > last {
			got, err := st.Rounds.FindRound(ctx, session, r.Seq)
			if err != nil {
				t.Fatalf("round %d, after the damaged lines %d–%d: %v", r.Seq, first, last, err)
			}
			read += len(got.Blocks)
		}
	}
	if read == 0 {
		t.Fatalf("no round of session %s after its damaged lines %d–%d was read", session, first, last)
	}
}

// TestRawStream: block texts read from their lines, decompressed ahead
// with the bound at its default or at a byte (one chunk at a time), are
// those of a store that keeps them whole, for every round of every real
// session, whole sessions and single rounds.
func TestRawStream(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	restore := sqlite.SetOldLayout(0)
	importInto(t, filepath.Join(dir, "whole.db"), realTranscripts(t))
	restore()
	importInto(t, filepath.Join(dir, "views.db"), realTranscripts(t))
	open := func(name string) *storetest.Store {
		db := sqlite.NewDB(filepath.Join(dir, name))
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		return stores(db)
	}
	whole, views := open("whole.db"), open("views.db")
	texts := func(st *storetest.Store, id string, one bool) []string {
		t.Helper()
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: !one})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range rounds {
			if one {
				if r, err = st.Rounds.FindRound(ctx, id, r.Seq); err != nil {
					t.Fatal(err)
				}
			}
			for _, b := range r.Blocks {
				out = append(out, b.Content)
			}
		}
		return out
	}
	sessions, _, err := whole.Sessions.FindSessions(ctx, cairn.SessionFilter{})
	if err != nil {
		t.Fatal(err)
	}
	viewed := 0
	for _, ahead := range []int{0, 1} {
		if ahead > 0 {
			defer sqlite.SetStreamAhead(ahead)()
		}
		for _, s := range sessions {
			want := texts(whole, s.ID, false)
			for _, one := range []bool{false, true} {
				got := texts(views, s.ID, one)
				if !slices.Equal(got, want) {
					t.Fatalf("session %s (ahead %d, one round at a time %v): %d block texts differ from the whole store's %d", s.ID, ahead, one, len(got), len(want))
				}
			}
			for _, w := range want {
				if len(w) > 4096 {
					viewed++
				}
			}
		}
	}
	if len(sessions) < 5 || viewed == 0 {
		t.Fatalf("%d sessions, %d long texts: the sample does not test views", len(sessions), viewed)
	}
}
