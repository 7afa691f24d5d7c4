package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"cairn"
	"cairn/sqlite"
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
