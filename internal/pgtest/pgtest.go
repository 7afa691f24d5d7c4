// Package pgtest gives tests a scratch PostgreSQL schema: the one way
// every package's tests reach the server .ci/setup-postgres.sh starts.
package pgtest

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

var seq atomic.Int64

// Schema returns the DSN of a fresh, empty schema of the database that
// $CAIRN_TEST_POSTGRES names; the schema is dropped when the test ends.
// Without $CAIRN_TEST_POSTGRES the test is skipped, naming what, or fails
// in CI, where PostgreSQL is required.
func Schema(tb testing.TB, what string) string {
	tb.Helper()
	dsn := os.Getenv("CAIRN_TEST_POSTGRES")
	if dsn == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatal("CAIRN_TEST_POSTGRES is not set: PostgreSQL is required in CI (.ci/setup-postgres.sh starts one)")
		}
		tb.Skip("SKIPPING " + what + ": set CAIRN_TEST_POSTGRES to a DSN (source .ci/setup-postgres.sh to start a scratch server)")
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

// WithSearchPath returns dsn (a URL or key=value pairs) with its
// search_path set to schema.
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
