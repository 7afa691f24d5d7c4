package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// BenchmarkFindRound reads the rounds of a long real session (2.9 MB)
// with their blocks, as `cairn show` does, in the layout new imports write and in the one before
// migration 0012 (S2 chunks, block texts inline), each time as a new
// process would (no chunk cached).
func BenchmarkFindRound(b *testing.B) {
	const id = "8463c716-a2ea-4c14-9efa-87158ebd9f20"
	long := "../../shared/testdata/transcripts/marot__spotter/long/" + id + ".jsonl"
	for _, layout := range []string{"views", "inline"} {
		b.Run(layout, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "cairn.db")
			if layout == "inline" {
				restore := sqlite.SetOldLayout(32)
				importInto(b, path, []string{long})
				restore()
			} else {
				importInto(b, path, []string{long})
			}
			db := sqlite.NewDB(path)
			if err := db.Open(); err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			rs := sqlite.NewRoundStore(db)
			ctx := context.Background()
			for b.Loop() {
				db.DropChunkCache()
				if rounds, err := rs.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true}); err != nil || len(rounds) == 0 {
					b.Fatal(err)
				}
			}
		})
	}
}
