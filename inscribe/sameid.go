package inscribe

import (
	"context"
	"os"
	"sync"

	"github.com/cairn-dev/cairn"
)

// A Sweeper is a store whose killed writers may leave blocks no reader
// sees (SQLite's staged blocks): Sweep deletes those no live writer holds,
// of every session, stored or not.
type Sweeper interface {
	Sweep(ctx context.Context) error
}

// sweep sweeps store when it is a [Sweeper]: what a killed writer left
// staged is not left for the next import or reindex of its own session,
// which may never come (its file unchanged or gone).
func sweep(ctx context.Context, store any) error {
	if sw, ok := store.(Sweeper); ok {
		return sw.Sweep(ctx)
	}
	return nil
}

// lock keeps two files of one session from being inscribed at once, in
// this importer and across the store's importers. A file is locked under
// its harness id first, then under the copy id it resolves to, if any:
// never the other way round.
func (im *Importer) lock(ctx context.Context, id string) (unlock func(), err error) {
	m, _ := im.sessions.LoadOrStore(id, new(sync.Mutex))
	mu := m.(*sync.Mutex)
	mu.Lock()
	release, err := im.Store.LockSession(ctx, id)
	if err != nil {
		mu.Unlock()
		return nil, err
	}
	return func() { release(); mu.Unlock() }, nil
}

// claim resolves the session the file at path feeds ([Importer.resolve])
// and locks it. Every file of one harness id is resolved and read in
// turn: two files of one session (a backup, a sync folder) read at once
// would each find the other's lines stored, or none, depending on timing.
// So the harness id is locked first, then the copy id the file resolves
// to, if any. It reports duplicate, holding the harness id's lock only,
// when the file holds nothing that session does not store already; and
// the source stored for the session, read under its lock, if resolve
// read it (nil otherwise).
func (im *Importer) claim(ctx context.Context, f *os.File, path string, size int64, sess *cairn.Session) (duplicate bool, known *cairn.Source, unlock func(), err error) {
	unlock, err = im.lock(ctx, sess.ID)
	if err != nil {
		return false, nil, nil, err
	}
	id := sess.ID
	dup, known, err := im.resolve(ctx, f, path, size, sess)
	if err != nil {
		unlock()
		return false, nil, nil, err
	}
	if dup || sess.ID == id {
		return dup, known, unlock, nil
	}
	unlockCopy, err := im.lock(ctx, sess.ID)
	if err != nil {
		unlock()
		return false, nil, nil, err
	}
	unlockID := unlock
	return false, nil, func() { unlockCopy(); unlockID() }, nil
}

// resolvedElsewhere reports whether the stored source src, which the
// file at path does not continue (not same), is another file of the
// session, stored since this one was resolved (an importer that raced
// without the lock): this file is then no rewrite of it, and is resolved
// again (cairn.ErrStale).
func resolvedElsewhere(same bool, src *cairn.Source, path string) bool {
	return !same && src.Path != path && exists(src.Path)
}
