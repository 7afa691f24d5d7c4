package inscribe

import (
	"bytes"
	"crypto/sha256"
	"encoding"
	"errors"
	"hash"
	"io"
	"os"

	"github.com/cairn-dev/cairn"
)

// windows holds the bytes a source's hashes cover, as they were read: the
// first [cairn.HeadSize] bytes of the file and the last [cairn.TailSize]
// before the read position, and a running SHA-256 of every byte before it
// ([cairn.Source.Sum]). Hashing what was read, rather than what the file
// holds when a batch is stored, is what lets a later import notice a file
// that changed under this one. The tail is kept as the lines read (never
// changed once read), not copied.
//
// The running hash is fed whole 64-byte blocks only (full), the bytes read
// after the last of them kept aside (rest, fewer than 64, also the tail
// window's last bytes): its state then holds no byte of the file, only
// SHA-256's chaining values and a length, and is what a batch stores as
// Sum (see [sumState]), so that a live import carries the hash on from it
// without reading the prefix again, and a store shared under Redact never
// keeps a raw byte in it.
type windows struct {
	head []byte
	tail [][]byte
	n    int       // bytes in tail
	full hash.Hash // every whole 64-byte block read from the file's start
	rest []byte    // the bytes read after full's, fewer than sha256.BlockSize
}

// load reads the stored prefix of f and reports whether it hashes as src
// says: whether the file still begins with what was inscribed. Every byte
// of the prefix is hashed, so an edit anywhere is seen, sizes kept or not;
// a source inscribed before sums were kept (no Sum) is checked by its
// windows, and gets a sum at its next commit. Checking 100 MB this way
// costs about 75 ms on 2 cores (SHA-256 with the CPU's instructions, from
// the page cache; BenchmarkReimport_Unchanged), against 0.25 ms for the
// windows alone.
//
// live (a hook inscribing the session it runs in, [Importer.Live], the
// file at the path stored) trusts a prefix whose windows hash as src says
// when src.Sum is a hash's state: the hash carries on from that state and
// the prefix is not read (0.25 ms at any size). An edit the windows miss
// is then seen by the next import that is not live, whose full read no
// longer matches the state carried on: a new generation, nothing lost. A
// Sum that is a digest (a store written before states were kept) is
// checked by the full read, once: its next commit stores a state.
func (w *windows) load(f *os.File, size int64, src *cairn.Source, live bool) (bool, error) {
	if size < src.Offset {
		return false, nil
	}
	if same, err := w.loadWindows(f, src); !same || err != nil {
		return false, err
	}
	aligned := src.Offset &^ (sha256.BlockSize - 1)
	last := w.tail[0]
	w.rest = append([]byte(nil), last[len(last)-int(src.Offset-aligned):]...)
	if live {
		if h := resumeSum(src.Sum); h != nil {
			w.full = h
			return true, nil
		}
	}
	w.full = sha256.New()
	if _, err := io.Copy(w.full, io.NewSectionReader(f, 0, aligned)); err != nil {
		return false, err
	}
	return src.Sum == nil || sameSum(w.full, w.rest, src.Sum), nil
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
	w.hash(b)
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

// hash feeds b to the running hash a whole block at a time, keeping what
// is left of the last block in rest.
func (w *windows) hash(b []byte) {
	if w.full == nil {
		w.full = sha256.New()
	}
	if len(w.rest) > 0 {
		k := min(sha256.BlockSize-len(w.rest), len(b))
		w.rest, b = append(w.rest, b[:k]...), b[k:]
		if len(w.rest) < sha256.BlockSize {
			return
		}
		w.full.Write(w.rest)
		w.rest = w.rest[:0]
	}
	whole := len(b) &^ (sha256.BlockSize - 1)
	w.full.Write(b[:whole])
	w.rest = append(w.rest, b[whole:]...)
}

// sums returns the SHA-256 of the head window, of the tail window, and
// the running hash's state to store as Sum (nil before a byte was read).
func (w *windows) sums() (head, tail, sum []byte) {
	h := sha256.Sum256(w.head)
	t := sha256.New()
	skip := max(0, w.n-cairn.TailSize)
	for _, b := range w.tail {
		cut := min(skip, len(b))
		t.Write(b[cut:])
		skip -= cut
	}
	if w.full != nil {
		sum = sumState(w.full)
	}
	return h[:], t.Sum(nil), sum
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

// sumState returns what a batch stores as [cairn.Source.Sum] for a running
// hash of whole blocks: its state (crypto/sha256's MarshalBinary, longer
// than a digest, holding no byte of the file since full has no partial
// block). It covers the prefix's whole 64-byte blocks; the bytes after
// them are the tail window's last, which TailHash covers.
func sumState(full hash.Hash) []byte {
	state, err := full.(encoding.BinaryMarshaler).MarshalBinary()
	if err != nil {
		panic("inscribe: SHA-256's state does not marshal: " + err.Error())
	}
	return state
}

// resumeSum returns the running hash a stored Sum is the state of, or nil
// for a digest (32 bytes: every store written before states were kept) or
// a state that does not unmarshal.
func resumeSum(sum []byte) hash.Hash {
	if len(sum) <= sha256.Size {
		return nil
	}
	h := sha256.New()
	if h.(encoding.BinaryUnmarshaler).UnmarshalBinary(sum) != nil {
		return nil
	}
	return h
}

// sameSum reports whether the prefix hashed as full (its whole blocks)
// and rest (the bytes after them) is the one a stored Sum was taken of:
// a digest is compared with the digest of every byte, a state's digest
// with full's (the same whole blocks; rest is the tail window's, compared
// by TailHash). Every comparison of a file with a stored Sum is this one.
func sameSum(full hash.Hash, rest, sum []byte) bool {
	if len(sum) == sha256.Size {
		h := resumeSum(sumState(full))
		h.Write(rest)
		return bytes.Equal(h.Sum(nil), sum)
	}
	h := resumeSum(sum)
	return h != nil && bytes.Equal(h.Sum(nil), full.Sum(nil))
}
