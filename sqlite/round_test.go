package sqlite_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// BenchmarkCountRounds counts the rounds of a frame that holds 3,400
// rounds of one session, as the SessionStart hook does for its "(N
// earlier rounds)": Cold opens the store for each count, as a hook does;
// Warm keeps it open.
func BenchmarkCountRounds(b *testing.B) {
	path := filepath.Join(b.TempDir(), "cairn.db")
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		b.Fatal(err)
	}
	const rounds = 3400
	id := "c0c0c0c0-0000-4000-8000-000000000000"
	in := &cairn.Inscription{Session: &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport},
		Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}, FrameID: "f2"}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= rounds; i++ {
		at := start.Add(time.Duration(i) * time.Second)
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: i, StartedAt: at, EndedAt: at, FirstLine: i, LastLine: i})
	}
	if err := sqlite.NewInscriptionStore(db).Inscribe(context.Background(), in); err != nil {
		b.Fatal(err)
	}
	db.Close()
	f := cairn.RoundFilter{FrameID: "f2"}
	count := func(rs *sqlite.RoundStore) {
		if n, err := rs.CountRounds(context.Background(), f); err != nil || n != rounds {
			b.Fatalf("CountRounds = %d, %v; want %d", n, err, rounds)
		}
	}
	b.Run("Cold", func(b *testing.B) {
		for b.Loop() {
			db := sqlite.NewDB(path)
			if err := db.Open(); err != nil {
				b.Fatal(err)
			}
			count(sqlite.NewRoundStore(db))
			db.Close()
		}
	})
	b.Run("Warm", func(b *testing.B) {
		db := sqlite.NewDB(path)
		if err := db.Open(); err != nil {
			b.Fatal(err)
		}
		defer db.Close()
		rs := sqlite.NewRoundStore(db)
		for b.Loop() {
			count(rs)
		}
	})
}
