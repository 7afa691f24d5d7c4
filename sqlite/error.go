package sqlite

import (
	"context"
	"errors"
	"io/fs"
	"strconv"
	"syscall"

	"github.com/cairn-dev/cairn"

	"modernc.org/sqlite"
)

// Primary SQLite result codes a person can act on.
const (
	sqliteError      = 1
	sqlitePerm       = 3
	sqliteBusy       = 5
	sqliteLocked     = 6
	sqliteNoMem      = 7
	sqliteReadOnly   = 8
	sqliteInterrupt  = 9
	sqliteIOErr      = 10
	sqliteCorrupt    = 11
	sqliteFull       = 13
	sqliteCantOpen   = 14
	sqliteConstraint = 19
	sqliteAuth       = 23
	sqliteNotADB     = 26
)

// explain replaces *errp by what [DB.storeError] makes of it: every
// exported method defers it, so that whatever the method returns has been
// translated once.
func (db *DB) explain(errp *error) { *errp = db.storeError(*errp) }

// storeError turns an error met while using the store into a
// [cairn.Error] that names the store, says what happened and what to do,
// and keeps the error as its cause: no SQL or driver text reaches a
// person. Domain errors, a cancelled context, a caller's own error
// ([given]) and nil pass through. A busy store is EINTERNAL, never
// ECONFLICT: callers read ECONFLICT as "what you read has changed" and
// read again (a frame's race) or skip (a phase already copied).
func (db *DB) storeError(err error) error {
	var e *cairn.Error
	var g given
	if err == nil || errors.As(err, &e) || errors.As(err, &g) || errors.Is(err, context.Canceled) {
		return err
	}
	code := cairn.EINTERNAL
	var se *sqlite.Error
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) || errors.As(err, &se) && se.Code()&0xff == sqliteReadOnly {
		code = cairn.EINVALID
	}
	return &cairn.Error{Code: code, Message: db.describe(err), Err: err}
}

// describe says, for a person, what err means for the store and what to do.
func (db *DB) describe(err error) string {
	path := db.Path
	var se *sqlite.Error
	var d *cairn.Damaged
	switch {
	case errors.As(err, &d):
		return "The store " + path + " holds damaged bytes: " + d.Lost() + ". Run `cairn reindex`: it rebuilds every other session and says how to store this one again."
	case errors.Is(err, context.DeadlineExceeded):
		return "The store " + path + " did not answer in time (another cairn process may hold it): try again."
	case errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS):
		return db.readOnlyMessage()
	case errors.Is(err, syscall.ENOSPC):
		return "The disk holding the store " + path + " is full: free some space and try again; nothing was half-written."
	case !errors.As(err, &se):
		return "The store " + path + " failed unexpectedly: try again; if it persists, run `cairn reindex`, and report it with the cause CAIRN_DEBUG=1 prints."
	}
	switch se.Code() & 0xff {
	case sqliteBusy, sqliteLocked:
		return "The store " + path + " stayed busy: another cairn process held its write lock for over " + db.busyTimeout().String() + ". Try again; if it persists, look for a stuck cairn process."
	case sqliteReadOnly, sqlitePerm, sqliteAuth:
		return db.readOnlyMessage()
	case sqliteFull:
		return "The disk holding the store " + path + " is full: free some space and try again; nothing was half-written."
	case sqliteCantOpen:
		return "The store " + path + " could not be opened: check that it is a file this user may read and write, in a folder this user may write (the -wal and -shm files go beside it)."
	case sqliteIOErr:
		return "The store " + path + " could not be read or written (I/O error): check the disk and the file's permissions, then try again."
	case sqliteCorrupt, sqliteNotADB:
		return "The store " + path + " is damaged or not a cairn store: restore it from a copy, or move it aside and import again."
	case sqliteError:
		if db.newer != "" {
			return "The store " + path + " was written by a newer cairn (it has " + db.newer + "): upgrade cairn to use it."
		}
		return "The store " + path + " lacks tables or columns this cairn needs (damaged, or changed by another program): restore it from a copy, or move it aside and import again."
	case sqliteInterrupt:
		return "The command was interrupted while using the store " + path + "; nothing was half-written: run it again."
	case sqliteNoMem:
		return "The store " + path + " ran out of memory: close other programs and try again."
	case sqliteConstraint:
		if db.newer != "" {
			return "The store " + path + " was written by a newer cairn (it has " + db.newer + "), whose rules refuse this write: upgrade cairn to write to it. Nothing was stored."
		}
		return "The store " + path + " refused a write that contradicts what it holds (a bug in cairn): nothing was stored; run `cairn reindex` and report it."
	}
	return "The store " + path + " failed (error code " + strconv.Itoa(se.Code()) + "): try again; if it persists, report it with the cause CAIRN_DEBUG=1 prints."
}

// readOnlyMessage is what a write to a store this user may not write
// says, whichever way it was found out.
func (db *DB) readOnlyMessage() string {
	return "The store " + db.Path + " is read-only for this user: it can be read (sessions, show, search, export) but not written. To write to it, check the permissions of the file, its folder and the -wal and -shm files beside it, or name a store you may write with --store or CAIRN_STORE."
}

// given marks an error that is not the store's (a caller's callback
// returned it): [DB.storeError] leaves it as it is.
type given struct{ err error }

func (g given) Error() string { return g.err.Error() }
func (g given) Unwrap() error { return g.err }

// mayNotWrite reports whether err says the store cannot be written by
// this user (permissions, a read-only file system), as opposed to broken.
func mayNotWrite(err error) bool {
	var se *sqlite.Error
	if errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS) {
		return true
	}
	if !errors.As(err, &se) {
		return false
	}
	switch se.Code() & 0xff {
	case sqliteReadOnly, sqlitePerm, sqliteCantOpen:
		return true
	}
	return false
}
