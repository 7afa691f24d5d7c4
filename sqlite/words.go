package sqlite

import "hash/maphash"

// The search index keeps which blocks hold a word, not how often
// (migration 0014), so a block's index text need hold each of its words
// only once: FTS5 tokenizes, stems and hashes every word it is given,
// inside the single write transaction, and a tool's output or a file read
// says the same words many times over. distinctWords cuts a block's text
// down to its distinct pieces before it reaches the index, on the
// importer's own goroutine.

// indexWords is distinctWords; a test that builds an index with
// positions, as older stores have, gives it the whole text.
var indexWords = distinctWords

// distinctWords returns the pieces of t, an index text, that the index
// tokenizer (unicode61) reads as distinct, each once, in the order first
// seen and separated by a space. A piece is a run of bytes between ASCII
// separators: ASCII letters and digits are token characters to unicode61
// and every other ASCII byte a separator, so each piece is tokenized on
// its own as it was within t. Its ASCII letters are folded to lower case,
// as the tokenizer folds them; a piece holding other characters is kept
// otherwise whole (the tokenizer may split it further), and only an equal
// piece is left out. The index then holds exactly the tokens it held for
// t; only the block's length in the index becomes its count of distinct
// pieces.
func distinctWords(t string) string {
	out := make([]byte, 0, len(t)/2)
	// A set of the pieces written, each by where it starts and ends in
	// out, open-addressed by a hash of its bytes: a map of strings cost
	// twice as much, most of it hashing and allocating the keys.
	var seen wordSet
	seen.init(len(t)/8 + 8)
	for i := 0; i < len(t); {
		for i < len(t) && separator(t[i]) {
			i++
		}
		start := i
		for i < len(t) && !separator(t[i]) {
			i++
		}
		if start == i {
			break
		}
		at := len(out)
		if at > 0 {
			out = append(out, ' ')
			at++
		}
		for _, c := range []byte(t[start:i]) {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			out = append(out, c)
		}
		if !seen.add(out, at) {
			out = out[:max(at-1, 0)]
		}
	}
	return string(out)
}

// A wordSet holds pieces of a buffer, each as its start and end + 1 in
// one uint64 (0: an empty slot).
type wordSet struct {
	slots []uint64
	n     int
	seed  maphash.Seed
}

func (s *wordSet) init(n int) {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	s.slots, s.n, s.seed = make([]uint64, size), 0, wordSeed
}

// add adds buf[at:], unless it holds it already; it reports whether it
// was added.
func (s *wordSet) add(buf []byte, at int) bool {
	w := buf[at:]
	mask := uint64(len(s.slots) - 1)
	for i := maphash.Bytes(s.seed, w) & mask; ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			s.slots[i] = uint64(at)<<32 | uint64(len(buf)+1)
			if s.n++; 2*s.n > len(s.slots) {
				s.grow(buf)
			}
			return true
		}
		if lo, hi := int(e>>32), int(e&0xffffffff)-1; hi-lo == len(w) && string(buf[lo:hi]) == string(w) {
			return false
		}
	}
}

// grow doubles the set's slots.
func (s *wordSet) grow(buf []byte) {
	old := s.slots
	s.slots = make([]uint64, 2*len(old))
	mask := uint64(len(s.slots) - 1)
	for _, e := range old {
		if e == 0 {
			continue
		}
		i := maphash.Bytes(s.seed, buf[e>>32:e&0xffffffff-1]) & mask
		for s.slots[i] != 0 {
			i = (i + 1) & mask
		}
		s.slots[i] = e
	}
}

// wordSeed is the hash seed of every wordSet.
var wordSeed = maphash.MakeSeed()

// separator reports whether unicode61, as the index configures it, reads
// byte c as a separator: any ASCII byte but a letter or a digit. Bytes of
// other characters are not separators here; the tokenizer decides.
func separator(c byte) bool {
	return c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}
