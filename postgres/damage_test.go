package postgres_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/storetest"

	"github.com/jackc/pgx/v5"
)

// TestReindex_DamagedLine: a byte flipped in one stored line is named on
// read (session and line, and what to run) instead of read back as the
// transcript; reindex rebuilds the other sessions, names the damaged one
// and the file to import again, and that import stores the transcript
// whole as a new generation, so the session reads back byte for byte.
func TestReindex_DamagedLine(t *testing.T) {
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	lines, ins := postgres.NewLineStore(db), postgres.NewInscriptionStore(db)
	dir := t.TempDir()
	const damagedID, otherID = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"
	for _, id := range []string{damagedID, otherID} {
		data, err := os.ReadFile(filepath.Join("..", "testdata", "claudecode", id+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	im := &inscribe.Importer{Store: struct {
		cairn.InscriptionStore
		cairn.LineStore
	}{ins, lines}, Format: claudecode.Format{}}
	if _, err := im.Import(ctx, []string{dir}); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, db.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	// One byte of line 3 flipped, as a disk or a hand might.
	if _, err := conn.Exec(ctx, `UPDATE lines SET raw = set_byte(raw, 10, get_byte(raw, 10) # 1) WHERE session_id = $1 AND no = 3`, damagedID); err != nil {
		t.Fatal(err)
	}
	_, err = lines.FindLines(ctx, damagedID, 0, 0)
	if msg := cairn.ErrorMessage(err); !strings.Contains(msg, "damaged") || !strings.Contains(msg, "line 3") || !strings.Contains(msg, "cairn reindex") {
		t.Fatalf("reading a damaged line: %q", msg)
	}
	if _, err := lines.FindLines(ctx, otherID, 0, 0); err != nil {
		t.Fatalf("another session's lines: %v", err)
	}
	err = storetest.Reindex(ctx, st, inscribe.Rebuild(claudecode.Format{}))
	path := filepath.Join(dir, damagedID+".jsonl")
	if msg := cairn.ErrorMessage(err); !strings.Contains(msg, "Reindexed 1 of 2 sessions") || !strings.Contains(msg, damagedID) || !strings.Contains(msg, "cairn import "+path) {
		t.Fatalf("reindex of a damaged store: %q (%v)", msg, err)
	}
	rep, err := im.Import(ctx, []string{path})
	if err != nil || rep.Files[0].Status != inscribe.StatusRewritten {
		t.Fatalf("import after reindex: %+v, %v", rep.Files[0], err)
	}
	got, err := lines.FindLines(ctx, damagedID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, l := range got {
		b.Write(l.Raw)
	}
	if want, _ := os.ReadFile(path); !bytes.Equal(b.Bytes(), want) {
		t.Fatal("the session does not read back as its transcript")
	}
	if err := storetest.Reindex(ctx, st, inscribe.Rebuild(claudecode.Format{})); err != nil {
		t.Fatalf("reindex after the import: %v", err)
	}
	if s, err := st.Sessions.FindSessionByID(ctx, damagedID); err != nil || s.Rounds == 0 {
		t.Fatalf("the repaired session: %+v, %v", s, err)
	}
}
