package postgres_test

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"cairn/postgres"
	"cairn/storetest"

	"github.com/jackc/pgx/v5"
)

// MustDSN returns the DSN of a fresh, empty schema of the database that
// $CAIRN_TEST_POSTGRES names; the schema is dropped when the test ends.
// Without $CAIRN_TEST_POSTGRES the test is skipped, or fails in CI.
func MustDSN(tb testing.TB) string {
	tb.Helper()
	dsn := os.Getenv("CAIRN_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("CAIRN_TEST_POSTGRES is not set: PostgreSQL is required in CI (.ci/setup-postgres.sh starts one)")
		}
		tb.Skip("SKIPPING the PostgreSQL store tests: set CAIRN_TEST_POSTGRES to a DSN " +
			"(source .ci/setup-postgres.sh to start a scratch server)")
	}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatalf("CAIRN_TEST_POSTGRES: %v", err)
	}
	defer conn.Close(ctx)
	schema := fmt.Sprintf("cairn_test_%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, seq.Add(1))
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() {
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			tb.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			tb.Error(err)
		}
	})
	return WithSearchPath(dsn, schema)
}

var seq atomic.Int64

// WithSearchPath returns dsn with its search_path set to schema.
func WithSearchPath(dsn, schema string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return dsn
		}
		q := u.Query()
		q.Set("search_path", schema)
		u.RawQuery = q.Encode()
		return u.String()
	}
	return dsn + " search_path=" + schema
}

// MustOpenDB returns a new, migrated store in a fresh schema.
func MustOpenDB(tb testing.TB) *postgres.DB {
	tb.Helper()
	db := postgres.NewDB(MustDSN(tb))
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
		}
	})
}

func TestOpen_Reopen(t *testing.T) {
	dsn := MustDSN(t)
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
