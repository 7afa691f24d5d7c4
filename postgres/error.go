package postgres

import (
	"context"
	"errors"
	"net"

	"cairn"

	"github.com/jackc/pgx/v5/pgconn"
)

// storeError turns a driver error into a [cairn.Error] that says what
// happened to the store and what to do, so that no SQL text reaches a
// person. Domain errors, context errors and nil pass through.
func storeError(err error) error {
	if err == nil || cairn.ErrorCode(err) != cairn.EINTERNAL {
		return err
	}
	if errors.Is(err, context.Canceled) {
		return err
	}
	var pgErr *pgconn.PgError
	var netErr net.Error
	switch {
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return cairn.Errorf(cairn.ECONFLICT, "The PostgreSQL store did not answer in time: check that the server is up and reachable, or raise the timeouts (connect_timeout, statement_timeout in the DSN).")
	case errors.As(err, &pgErr):
		switch {
		case pgErr.Code == "57014":
			return cairn.Errorf(cairn.ECONFLICT, "The PostgreSQL store cancelled a statement that ran past its statement_timeout: try again, or raise statement_timeout in the DSN.")
		case pgErr.Code == "55P03" || pgErr.Code == "40001" || pgErr.Code == "40P01":
			return cairn.Errorf(cairn.ECONFLICT, "The PostgreSQL store stayed busy with other writers: try again.")
		case pgErr.Code == "53100":
			return cairn.Errorf(cairn.EINTERNAL, "The PostgreSQL server's disk is full: free some space and try again; nothing was half-written.")
		case pgErr.Code == "42501":
			return cairn.Errorf(cairn.EINVALID, "The PostgreSQL user lacks a permission the store needs: grant it on the database or schema the DSN names.")
		case pgErr.Code[:2] == "23":
			return cairn.Errorf(cairn.EINTERNAL, "The PostgreSQL store refused a write that contradicts what it holds (a bug in cairn): nothing was stored; run `cairn reindex` and report it.")
		case pgErr.Code[:2] == "08" || pgErr.Code[:2] == "57":
			return cairn.Errorf(cairn.EINTERNAL, "The connection to the PostgreSQL store was lost: check the server, then try again.")
		}
		return cairn.Errorf(cairn.EINTERNAL, "The PostgreSQL store failed (SQLSTATE %s): try again; if it persists, report it.", pgErr.Code)
	case pgconn.SafeToRetry(err) || isConnectError(err):
		return cairn.Errorf(cairn.EINTERNAL, "Could not reach the PostgreSQL store: check that the server is up and the DSN is right, then try again.")
	}
	return err
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}
