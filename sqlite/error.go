package sqlite

import (
	"context"
	"errors"

	"cairn"

	"modernc.org/sqlite"
)

// Primary SQLite result codes a person can act on.
const (
	sqliteBusy       = 5
	sqliteLocked     = 6
	sqliteReadOnly   = 8
	sqliteIOErr      = 10
	sqliteCorrupt    = 11
	sqliteFull       = 13
	sqliteCantOpen   = 14
	sqliteConstraint = 19
	sqliteNotADB     = 26
)

// storeError turns a driver error into a [cairn.Error] that says what
// happened to the store and what to do, so that no SQL text reaches a
// person. Domain errors, context errors and nil pass through.
func storeError(db *DB, err error) error {
	var se *sqlite.Error
	if err == nil || !errors.As(err, &se) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	path := db.Path
	var e *cairn.Error
	switch se.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		e = cairn.Errorf(cairn.ECONFLICT, "The store %s stayed busy: another cairn process held its write lock for over 30 s. Try again; if it persists, look for a stuck cairn process.", path)
	case sqliteReadOnly:
		e = cairn.Errorf(cairn.EINVALID, "The store %s is read-only for this user: check the permissions of the file and its folder.", path)
	case sqliteFull:
		e = cairn.Errorf(cairn.EINTERNAL, "The disk holding the store %s is full: free some space and try again; nothing was half-written.", path)
	case sqliteIOErr, sqliteCantOpen:
		e = cairn.Errorf(cairn.EINTERNAL, "The store %s could not be read or written (I/O error): check the disk and the file's permissions, then try again.", path)
	case sqliteCorrupt, sqliteNotADB:
		e = cairn.Errorf(cairn.EINTERNAL, "The store %s is damaged or not a cairn store: restore it from a copy, or move it aside and import again.", path)
	case sqliteConstraint:
		e = cairn.Errorf(cairn.EINTERNAL, "The store %s refused a write that contradicts what it holds (a bug in cairn): nothing was stored; run `cairn reindex` and report it.", path)
	default:
		e = cairn.Errorf(cairn.EINTERNAL, "The store %s failed (SQLite code %d): try again; if it persists, report it.", path, se.Code())
	}
	return e
}
