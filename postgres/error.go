package postgres

import (
	"context"
	"errors"
	"net"

	"github.com/cairn-dev/cairn"

	"github.com/jackc/pgx/v5/pgconn"
)

// explain replaces *errp by what [DB.storeError] makes of it: every
// exported method defers it, so that whatever the method returns has been
// translated once.
func (db *DB) explain(errp *error) { *errp = db.storeError(*errp) }

// storeError turns an error met while using the store into a
// [cairn.Error] that names the store, says what happened and what to do,
// and keeps the error as its cause: no SQL or driver text reaches a
// person. Domain errors, a cancelled context, a caller's own error
// ([given]) and nil pass through. A busy or slow store is EINTERNAL,
// never ECONFLICT: callers read ECONFLICT as "what you read has changed"
// and read again (a frame's race) or skip (a phase already copied).
func (db *DB) storeError(err error) error {
	var e *cairn.Error
	var g given
	if err == nil || errors.As(err, &e) || errors.As(err, &g) || errors.Is(err, context.Canceled) {
		return err
	}
	code, msg := db.describe(err)
	return &cairn.Error{Code: code, Message: msg, Err: err}
}

// describe says, for a person, what err means for the store and what to
// do, with the code edges map it by.
func (db *DB) describe(err error) (string, string) {
	store := "The PostgreSQL store"
	if db.name != "" {
		store += " " + db.name
	}
	var pgErr *pgconn.PgError
	var netErr net.Error
	var d *cairn.Damaged
	switch {
	case errors.As(err, &d):
		return cairn.EINTERNAL, store + " holds damaged bytes: " + d.Lost() + ". Run `cairn reindex`: it rebuilds every other session and says how to store this one again."
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &netErr) && netErr.Timeout()):
		return cairn.EINTERNAL, store + " did not answer in time: check that the server is up and reachable, or raise the timeouts (connect_timeout, statement_timeout in the DSN)."
	case errors.As(err, &pgErr):
		return pgErrorText(store, pgErr.Code, db.newer)
	case pgconn.SafeToRetry(err) || isConnectError(err):
		return cairn.EINTERNAL, store + " could not be reached: check that the server is up and the DSN is right, then try again."
	}
	return cairn.EINTERNAL, store + " failed unexpectedly (the connection may have dropped): check the server, then try again; if it persists, report it with the cause CAIRN_DEBUG=1 prints."
}

// pgErrorText is the code and message for an error the server sent, by
// its SQLSTATE.
func pgErrorText(store, state, newer string) (string, string) {
	switch class := state[:2]; {
	case state == "57014":
		return cairn.EINTERNAL, store + " cancelled a statement that ran past its statement_timeout: try again, or raise statement_timeout in the DSN."
	case state == "55P03" || state == "40001" || state == "40P01" || state == "53300":
		return cairn.EINTERNAL, store + " stayed busy with other clients: try again."
	case state == "53100":
		return cairn.EINTERNAL, "The disk of the" + store[3:] + " is full: free some space and try again; nothing was half-written."
	case state == "42501":
		return cairn.EINVALID, store + " refused this user a permission the store needs: grant it on the database or schema the DSN names."
	case state == "25006":
		return cairn.EINVALID, store + " is read-only (a standby?): point the DSN at the primary server."
	case state == "3D000":
		return cairn.EINVALID, store + " names a database the server does not have: create it, or correct the DSN."
	case class == "28":
		return cairn.EINVALID, store + " refused to log in: check the user and password in the DSN (or PGPASSWORD, ~/.pgpass)."
	case class == "42" || state == "3F000":
		if newer != "" {
			return cairn.EINTERNAL, store + " was written by a newer cairn (it has " + newer + "): upgrade cairn to use it."
		}
		return cairn.EINTERNAL, store + " lacks tables or columns this cairn needs (changed by another program?): restore it from a copy, or point the DSN at another schema and run `cairn migrate` into it."
	case class == "23":
		if newer != "" {
			return cairn.EINTERNAL, store + " was written by a newer cairn (it has " + newer + "), whose rules refuse this write: upgrade cairn to write to it. Nothing was stored."
		}
		return cairn.EINTERNAL, store + " refused a write that contradicts what it holds (a bug in cairn): nothing was stored; run `cairn reindex` and report it."
	case class == "08" || class == "57":
		return cairn.EINTERNAL, "The connection to the" + store[3:] + " was lost: check the server, then try again."
	case class == "XX":
		return cairn.EINTERNAL, store + " reported damage (error code " + state + "): ask its administrator to check the database."
	}
	return cairn.EINTERNAL, store + " failed (error code " + state + "): try again; if it persists, report it with the cause CAIRN_DEBUG=1 prints."
}

func isConnectError(err error) bool {
	var ce *pgconn.ConnectError
	return errors.As(err, &ce)
}

// given marks an error that is not the store's (a caller's callback
// returned it): [DB.storeError] leaves it as it is.
type given struct{ err error }

func (g given) Error() string { return g.err.Error() }
func (g given) Unwrap() error { return g.err }
