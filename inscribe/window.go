package inscribe

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"hash"
	"io"
	"os"

	"cairn"
)

// windows holds the bytes a source's hashes cover, as they were read: the
// first [cairn.HeadSize] bytes of the file and the last [cairn.TailSize]
// before the read position, and a running SHA-256 of every byte before it
// ([cairn.Source.Sum]). Hashing what was read, rather than what the file
// holds when a batch is stored, is what lets a later import notice a file
// that changed under this one. The tail is kept as the lines read (never
// changed once read), not copied.
type windows struct {
	head []byte
	tail [][]byte
	n    int       // bytes in tail
	full hash.Hash // every byte read from the file's start
}

// load reads the stored prefix of f and reports whether it hashes as src
// says: whether the file still begins with what was inscribed. Every byte
// of the prefix is hashed, so an edit anywhere is seen, sizes kept or not;
// a source inscribed before sums were kept (no Sum) is checked by its
// windows, and gets a sum at its next commit. Checking 100 MB this way
// costs about 75 ms on 2 cores (SHA-256 with the CPU's instructions, from
// the page cache; BenchmarkReimport_Unchanged), against 0.25 ms for the
// windows alone.
func (w *windows) load(f *os.File, size int64, src *cairn.Source) (bool, error) {
	if size < src.Offset {
		return false, nil
	}
	if same, err := w.loadWindows(f, src); !same || err != nil {
		return false, err
	}
	w.full = sha256.New()
	if _, err := io.Copy(w.full, io.NewSectionReader(f, 0, src.Offset)); err != nil {
		return false, err
	}
	return src.Sum == nil || bytes.Equal(w.full.Sum(nil), src.Sum), nil
}

// loadWindows reads the head and tail windows of the stored prefix and
// reports whether they hash as src says (a cheap check that needs no full
// read: what is done before each commit).
func (w *windows) loadWindows(f *os.File, src *cairn.Source) (bool, error) {
	var err error
	if w.head, err = readAt(f, 0, min(src.Offset, cairn.HeadSize)); err != nil {
		return false, err
	}
	tail, err := readAt(f, max(0, src.Offset-cairn.TailSize), src.Offset)
	if err != nil {
		return false, err
	}
	w.tail, w.n = [][]byte{tail}, len(tail)
	head, sum, _ := w.sums()
	return bytes.Equal(head, src.HeadHash) && bytes.Equal(sum, src.TailHash), nil
}

// add appends bytes read after the windows; b must not change afterwards.
func (w *windows) add(b []byte) {
	if n := cairn.HeadSize - len(w.head); n > 0 {
		w.head = append(w.head, b[:min(n, len(b))]...)
	}
	if w.full == nil {
		w.full = sha256.New()
	}
	w.full.Write(b)
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

// sums returns the SHA-256 of the head window, of the tail window and of
// every byte read (nil before a byte was).
func (w *windows) sums() (head, tail, full []byte) {
	h := sha256.Sum256(w.head)
	t := sha256.New()
	skip := max(0, w.n-cairn.TailSize)
	for _, b := range w.tail {
		cut := min(skip, len(b))
		t.Write(b[cut:])
		skip -= cut
	}
	if w.full != nil {
		full = w.full.Sum(nil)
	}
	return h[:], t.Sum(nil), full
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

// snapshot returns the windows as they are now, sharing their bytes
// (never changed once read), for the check before a batch is stored.
func (w *windows) snapshot() windows {
	return windows{head: w.head[:len(w.head):len(w.head)], tail: append([][]byte(nil), w.tail...), n: w.n}
}

// holds reports whether f still holds the bytes of w's windows, which end
// at offset: compared byte for byte, not hashed again.
func (w *windows) holds(f *os.File, offset int64) (bool, error) {
	head, err := readAt(f, 0, min(offset, cairn.HeadSize))
	if err != nil || !bytes.Equal(head, w.head) {
		return false, err
	}
	tail, err := readAt(f, max(0, offset-cairn.TailSize), offset)
	if err != nil {
		return false, err
	}
	skip := max(0, w.n-cairn.TailSize)
	for _, b := range w.tail {
		cut := min(skip, len(b))
		b, skip = b[cut:], skip-cut
		if !bytes.HasPrefix(tail, b) {
			return false, nil
		}
		tail = tail[len(b):]
	}
	return len(tail) == 0, nil
}

// unchanged checks, before b is stored, that the file is still the one
// read: the path names the file opened (same device and inode), it is not
// shorter than b's end, and its windows still hold the bytes read.
// (Only the windows: reading the whole prefix again before each batch
// would make an import quadratic. An edit elsewhere while a file is read
// is seen by the next import, whose sum of the prefix differs.)
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
	same, err := b.win.holds(r.f, b.offset)
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
