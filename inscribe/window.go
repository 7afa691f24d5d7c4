package inscribe

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"os"

	"cairn"
)

// windows holds the bytes a source's hashes cover, as they were read: the
// first [cairn.HeadSize] bytes of the file and the last [cairn.TailSize]
// before the read position. Hashing what was read, rather than what the
// file holds when a batch is stored, is what lets a later import notice a
// file that changed under this one. The tail is kept as the lines read
// (never changed once read), not copied.
type windows struct {
	head []byte
	tail [][]byte
	n    int // bytes in tail
}

// load reads the windows of the stored prefix of f and reports whether
// they hash as src says: whether the file still begins with what was
// inscribed.
func (w *windows) load(f *os.File, size int64, src *cairn.Source) (bool, error) {
	if size < src.Offset {
		return false, nil
	}
	var err error
	if w.head, err = readAt(f, 0, min(src.Offset, cairn.HeadSize)); err != nil {
		return false, err
	}
	tail, err := readAt(f, max(0, src.Offset-cairn.TailSize), src.Offset)
	if err != nil {
		return false, err
	}
	w.tail, w.n = [][]byte{tail}, len(tail)
	head, sum := w.sums()
	return bytes.Equal(head, src.HeadHash) && bytes.Equal(sum, src.TailHash), nil
}

// add appends bytes read after the windows; b must not change afterwards.
func (w *windows) add(b []byte) {
	if n := cairn.HeadSize - len(w.head); n > 0 {
		w.head = append(w.head, b[:min(n, len(b))]...)
	}
	w.tail = append(w.tail, b)
	w.n += len(b)
	drop := 0
	for w.n-len(w.tail[drop]) >= cairn.TailSize {
		w.n -= len(w.tail[drop])
		drop++
	}
	if drop > 0 {
		w.tail = append(w.tail[:0], w.tail[drop:]...)
	}
}

// sums returns the SHA-256 of the head window and of the tail window.
func (w *windows) sums() (head, tail []byte) {
	h := sha256.Sum256(w.head)
	t := sha256.New()
	skip := max(0, w.n-cairn.TailSize)
	for _, b := range w.tail {
		cut := min(skip, len(b))
		t.Write(b[cut:])
		skip -= cut
	}
	return h[:], t.Sum(nil)
}

// readAt returns f's bytes from..to, or an error if f is shorter.
func readAt(f *os.File, from, to int64) ([]byte, error) {
	buf := make([]byte, to-from)
	if _, err := f.ReadAt(buf, from); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, errChanged
		}
		return nil, err
	}
	return buf, nil
}

// unchanged checks, before b is stored, that the file is still the one
// read: the path names the file opened (same device and inode), it is not
// shorter than b's end, and its hashed windows still hold the bytes read.
// Otherwise it returns errChanged and the import starts again, reading
// the file as it is now.
func (r *run) unchanged(b *batch) error {
	now, err := os.Stat(r.path)
	if err != nil || !os.SameFile(now, r.info) {
		return errChanged
	}
	info, err := r.f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < b.offset {
		return errChanged
	}
	w := &windows{}
	same, err := w.load(r.f, info.Size(), &cairn.Source{Offset: b.offset, HeadHash: b.headHash, TailHash: b.tailHash})
	if err != nil {
		return err
	}
	if !same {
		return errChanged
	}
	return nil
}

// committedProblems returns the problems of the lines stored so far: after
// a failed commit the rest are read, and reported, again.
func (r *run) committedProblems() []Problem {
	var out []Problem
	for _, p := range r.problems {
		if p.Line <= r.src.Lines && !r.reset {
			out = append(out, p)
		}
	}
	return out
}
