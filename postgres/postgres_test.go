package postgres_test

import (
	"testing"
	"time"

	"cairn/internal/pgtest"
	"cairn/postgres"
	"cairn/storetest"
)

// MustOpenDB returns a new, migrated store in a fresh schema.
func MustOpenDB(tb testing.TB) *postgres.DB {
	tb.Helper()
	db := postgres.NewDB(pgtest.Schema(tb, "the PostgreSQL store tests"))
	db.Now = func() time.Time { return time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC) }
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		if err := db.Close(); err != nil {
			tb.Error(err)
		}
	})
	return db
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(tb testing.TB) *storetest.Store {
		db := MustOpenDB(tb)
		return &storetest.Store{
			Sessions: postgres.NewSessionStore(db), Rounds: postgres.NewRoundStore(db), Lines: postgres.NewLineStore(db),
			Inscription: postgres.NewInscriptionStore(db), Searcher: postgres.NewSearcher(db),
			Frames: postgres.NewFrameStore(db), Missions: postgres.NewMissionStore(db), Tags: postgres.NewTagStore(db),
			Engagements: postgres.NewEngagementStore(db),
		}
	})
}

func TestOpen_Reopen(t *testing.T) {
	dsn := pgtest.Schema(t, "the PostgreSQL store tests")
	for i := 0; i < 2; i++ {
		db := postgres.NewDB(dsn)
		if err := db.Open(); err != nil {
			t.Fatalf("open %d: %v", i, err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
