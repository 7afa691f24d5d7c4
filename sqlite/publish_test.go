package sqlite

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestPublish_PartlyDropped: an import whose staged range lost its first
// part to another import of the session (which drops a lost import's
// staged blocks a part at a time, moving the range's start on) does not
// publish what is left: the batch is stale. Counting the ranges alone
// let it publish a version missing those blocks, which a reader then saw.
func TestPublish_PartlyDropped(t *testing.T) {
	for _, dropped := range []bool{false, true} {
		ctx := context.Background()
		db := NewDB(filepath.Join(t.TempDir(), "cairn.db"))
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		s := NewInscriptionStore(db)
		st := &staging{token: "t"}
		var blocks []*cairn.Block
		for i := range 8 {
			blocks = append(blocks, &cairn.Block{SessionID: "s", RoundSeq: 1, LineNo: 1, Index: i, Role: "assistant",
				Kind: cairn.AssistantText, Timestamp: time.Unix(0, 0), Content: "text"})
		}
		var steps cairn.StepCounter
		if err := s.stage(ctx, "s", st, [][]*cairn.Block{blocks}, &steps, nil); err != nil {
			t.Fatal(err)
		}
		if dropped {
			rtx, err := db.read(ctx)
			if err != nil {
				t.Fatal(err)
			}
			var row, lo, hi int64
			err = rtx.QueryRow(`SELECT rowid, lo, hi FROM staged_blocks`).Scan(&row, &lo, &hi)
			rtx.Rollback()
			if err != nil {
				t.Fatal(err)
			}
			if err := s.dropRange(ctx, "s", row, lo, lo+3, lo+4, hi); err != nil {
				t.Fatal(err)
			}
		}
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = st.publish(ctx, tx, "s")
		tx.Rollback()
		if stale := errors.Is(err, cairn.ErrStale); stale != dropped || (err != nil && !stale) {
			t.Errorf("first part dropped %v: publish %v", dropped, err)
		}
	}
}
