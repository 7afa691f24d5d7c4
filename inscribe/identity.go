package inscribe

import (
	"bytes"
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"github.com/cairn-dev/cairn"
)

// resolve sets sess.ID to the session the file at path feeds, by its
// [cairn.SourceKey]: the session last read from path, else the session
// with the id the harness gave it if that one was read from this path,
// or from a file that no longer exists (the file moved), or if the file
// begins with every byte that session stores (the longer of two sources,
// one a prefix of the other, is the session), else a copy of that id
// whose file no longer exists and whose lines the file begins with (a
// copy moved), else, when another existing file holds that id,
// [cairn.SourceKey.CopyID]: a diverging copy is stored beside it. It
// reports duplicate when the file holds only bytes that session already
// stores from the other file: a copy is not stored twice; and known, the
// source stored for the session it resolved to when it read it (nil
// otherwise), which the import need not read again. The caller holds
// the lock of sess.ID as the harness gave it.
func (im *Importer) resolve(ctx context.Context, f *os.File, path string, size int64, sess *cairn.Session) (duplicate bool, known *cairn.Source, err error) {
	known, err = im.Store.FindSourceByPath(ctx, path)
	if err == nil {
		sess.ID = known.SessionID
		return false, known, nil
	} else if cairn.ErrorCode(err) != cairn.ENOTFOUND {
		return false, nil, err
	}
	key := cairn.SourceKey{Agent: sess.Agent, ID: sess.ID, Path: path}
	other, err := im.Store.FindSource(ctx, sess.ID)
	switch {
	case cairn.ErrorCode(err) == cairn.ENOTFOUND:
		return false, nil, nil
	case err != nil:
		return false, nil, err
	case other.Path == path || other.Path == "":
		return false, other, nil
	case other.Agent != sess.Agent:
	case size <= other.Offset:
		// A file that holds only the beginning of what is stored (a
		// partial copy) adds nothing, whether the file stored is still
		// there or moved with its copy; the whole of it, where the file
		// stored is gone, is that file moved.
		same, err := im.storedPrefix(ctx, f, size, other)
		switch {
		case err != nil:
			return false, nil, err
		case !exists(other.Path):
			return same && size < other.Offset, nil, nil
		case same:
			return true, nil, nil
		}
	default:
		// A file that begins with every byte stored is the longer source
		// the stored one was a partial copy of (or the same file, moved
		// and grown): it is the session, and the stored file, read
		// again, is then a copy of it. Nothing flips between the two.
		grown, err := im.storedPrefix(ctx, f, other.Offset, other)
		if err != nil || grown || !exists(other.Path) {
			return false, nil, err
		}
	}
	// A copy whose file moved (a backup folder moved elsewhere) is the
	// copy session whose file is gone and whose lines the file begins
	// with; a copy id of its own would store it a third time.
	copies, err := im.Store.FindCopies(ctx, sess.ID)
	if err != nil {
		return false, nil, err
	}
	for _, c := range copies {
		if c.Agent != sess.Agent || c.Offset == 0 || c.Path == path || exists(c.Path) {
			continue
		}
		same, err := im.storedPrefix(ctx, f, min(size, c.Offset), c)
		if err != nil {
			return false, nil, err
		}
		if same {
			sess.ID = c.SessionID
			return false, nil, nil
		}
	}
	sess.ID = key.CopyID()
	return false, nil, nil
}

// exists reports whether path names a file now; an error other than "does
// not exist" (a folder without permission) counts as existing, so a file
// is never taken for moved when it may not have.
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// storedPrefix reports whether f's first size bytes are the first bytes of
// the current generation src's session stores.
func (im *Importer) storedPrefix(ctx context.Context, f *os.File, size int64, src *cairn.Source) (bool, error) {
	lines, err := im.Store.FindLines(ctx, src.SessionID, 0, 0)
	if err != nil {
		return false, err
	}
	r := io.NewSectionReader(f, 0, size)
	var buf []byte
	left := size
	for _, l := range lines {
		if left == 0 {
			break
		}
		raw := l.Raw[:min(int64(len(l.Raw)), left)]
		if cap(buf) < len(raw) {
			buf = make([]byte, len(raw))
		}
		buf = buf[:len(raw)]
		if _, err := io.ReadFull(r, buf); err != nil {
			return false, nil // shorter than it said: not a copy
		}
		if !bytes.Equal(buf, raw) {
			return false, nil
		}
		left -= int64(len(raw))
	}
	return left == 0, nil
}
