package inscribe

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// sumWindows returns the windows of data read line by line and the
// source they would store.
func sumWindows(data []byte) (*windows, *cairn.Source) {
	w := &windows{}
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		if len(l) > 0 {
			w.add(l)
		}
	}
	head, tail, sum := w.sums()
	return w, &cairn.Source{Offset: int64(len(data)), HeadHash: head, TailHash: tail, Sum: sum}
}

// TestWindows_LoadSum: a stored Sum is a hash's state (longer than a
// digest) or, in a store written before, a digest. Either is checked
// against every byte of the prefix, so an edit in the middle is seen; a
// live load trusts a state when the windows hold, and so does not see it,
// but reads every byte to check a digest. What a load goes on hashing is
// the file's: its state, after more bytes, is the one reading them all
// from the start gives.
func TestWindows_LoadSum(t *testing.T) {
	for _, size := range []int{10, 64, 640, 3*cairn.HeadSize + 17, 3*cairn.HeadSize + 64} {
		var data []byte
		for i := 0; len(data) < size; i++ {
			data = fmt.Appendf(data, `{"n":%d,"text":"line %d of a file read in windows"}`+"\n", i, i)
		}
		data = data[:size]
		_, state := sumWindows(data)
		if len(state.Sum) <= sha256.Size {
			t.Fatalf("size %d: stored sum of %d bytes, want a state", size, len(state.Sum))
		}
		digest := *state
		d := sha256.Sum256(data)
		digest.Sum = d[:]
		more := []byte(`{"n":"more","text":"a line appended after the stored prefix"}` + "\n")
		_, after := sumWindows(append(bytes.Clone(data), more...))
		for _, c := range []struct {
			name   string
			src    *cairn.Source
			live   bool
			edited bool // a byte between the windows changed
			want   bool
		}{
			{"State", state, false, false, true},
			{"StateLive", state, true, false, true},
			{"Digest", &digest, false, false, true},
			{"DigestLive", &digest, true, false, true},
			{"StateEdited", state, false, true, false},
			{"StateEditedLive", state, true, true, true},
			{"DigestEdited", &digest, false, true, false},
			{"DigestEditedLive", &digest, true, true, false},
		} {
			if c.edited && size < 2*cairn.HeadSize+cairn.TailSize {
				continue
			}
			t.Run(fmt.Sprintf("%d/%s", size, c.name), func(t *testing.T) {
				b := bytes.Clone(data)
				if c.edited {
					b[cairn.HeadSize+10] ^= 1
				}
				f := writeOpen(t, filepath.Join(t.TempDir(), "t.jsonl"), b)
				w := &windows{}
				got, err := w.load(f, int64(len(b)), c.src, c.live)
				if got != c.want || err != nil {
					t.Fatalf("load = %v, %v; want %v", got, err, c.want)
				}
				if !got || c.edited {
					return
				}
				w.add(more)
				_, _, sum := w.sums()
				if !bytes.Equal(sum, after.Sum) {
					t.Fatalf("state after loading and reading %d bytes more differs from reading them all", len(more))
				}
				if !sameSum(w.full, w.rest, after.Sum) || !sameSum(w.full, w.rest, digestOf(append(b, more...))) {
					t.Fatal("sameSum refuses the state or digest of the bytes read")
				}
			})
		}
	}
}

func digestOf(b []byte) []byte {
	d := sha256.Sum256(b)
	return d[:]
}

// TestWindows_SumHoldsNoByte: the state stored as Sum is of the prefix's
// whole 64-byte blocks only, so it keeps no byte of the file (a store
// shared under Redact): two files that differ only after their last whole
// block store the same state.
func TestWindows_SumHoldsNoByte(t *testing.T) {
	base := bytes.Repeat([]byte(`{"text":"sixty-four bytes of a line, more or less"}`+"\n"), 40)
	base = base[:len(base)&^63]
	_, a := sumWindows(append(bytes.Clone(base), `{"secret":"sk-one"}`+"\n"...))
	_, b := sumWindows(append(bytes.Clone(base), `{"secret":"sk-two"}`+"\n"...))
	if len(a.Sum) <= sha256.Size || !bytes.Equal(a.Sum, b.Sum) {
		t.Fatalf("states of files differing after their whole blocks: %x, %x", a.Sum, b.Sum)
	}
	if bytes.Equal(a.TailHash, b.TailHash) {
		t.Fatal("the tail window does not cover the bytes after the whole blocks")
	}
}
