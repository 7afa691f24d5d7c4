package sqlite

import "math/rand/v2"

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
	out := make([]byte, 0, len(t))
	// A set of the pieces written, each by where it starts and ends in
	// out, open-addressed by a hash of its bytes: with a map of strings,
	// which hashed and allocated keys, it ran at 121 MB/s against 162
	// (BenchmarkDistinctWords). A short text's set is on the stack: most
	// blocks are a few words. Each byte is read once, through wordBytes,
	// and hashed as it is copied into place (with maphash over each piece
	// after it was appended: 141 MB/s, against 245).
	var small [64]uint64
	var set wordSet
	if size := slotsFor(len(t)/8 + 8); size <= len(small) {
		set.slots = small[:size]
	} else {
		set.slots = make([]uint64, size)
	}
	// out is never longer than t: a piece after the first had a
	// separator before it in t too.
	out = out[:len(t)]
	n := 0
	for i := 0; i < len(t); {
		for i < len(t) && wordBytes[t[i]] == 0 {
			i++
		}
		if i == len(t) {
			break
		}
		at := n
		if at > 0 {
			out[n] = ' '
			n++
			at++
		}
		h := wordSeed
		for ; i < len(t); i++ {
			c := wordBytes[t[i]]
			if c == 0 {
				break
			}
			out[n] = c
			n++
			h = wordHashByte(h, c)
		}
		var added bool
		if set, added = set.add(out[:n], at, h); !added {
			n = max(at-1, 0)
		}
	}
	out = out[:n]
	return string(out)
}

// wordBytes maps a byte of an index text to itself folded to lower case
// as the tokenizer folds it, or to 0 if it is a [separator].
var wordBytes = func() (m [256]byte) {
	for c := range 256 {
		switch {
		case separator(byte(c)):
		case 'A' <= c && c <= 'Z':
			m[c] = byte(c + 'a' - 'A')
		default:
			m[c] = byte(c)
		}
	}
	return m
}()

// wordHash is FNV-1a of the bytes of a piece as distinctWords copies
// them, from a random start each process (wordSeed), so that no text
// known beforehand makes its pieces collide. distinctWords computes it a
// byte at a time as it copies (wordHashByte).
func wordHash[T string | []byte](w T) uint64 {
	h := wordSeed
	for i := range len(w) {
		h = wordHashByte(h, w[i])
	}
	return h
}

// wordHashByte is wordHash's step: h, the hash so far, with c.
func wordHashByte(h uint64, c byte) uint64 { return (h ^ uint64(c)) * fnvPrime }

const fnvPrime = 1099511628211

var wordSeed = rand.Uint64()

// slotsFor returns the slots a wordSet needs for n pieces at half load:
// a power of two, at least 16.
func slotsFor(n int) int {
	size := 16
	for size < 2*n {
		size <<= 1
	}
	return size
}

// A wordSet holds pieces of a buffer, each as its start and end + 1 in
// one uint64 (0: an empty slot). Its methods take and return it by
// value, so that a set whose slots are on the caller's stack stays there.
type wordSet struct {
	slots []uint64
	n     int
}

// add adds buf[at:], whose [wordHash] is h, to s, unless s holds it
// already; it returns the set and whether it was added.
func (s wordSet) add(buf []byte, at int, h uint64) (wordSet, bool) {
	w := buf[at:]
	mask := uint64(len(s.slots) - 1)
	for i := mix(h) & mask; ; i = (i + 1) & mask {
		e := s.slots[i]
		if e == 0 {
			s.slots[i] = uint64(at)<<32 | uint64(len(buf)+1)
			if s.n++; 2*s.n > len(s.slots) {
				s.slots = s.grown(buf)
			}
			return s, true
		}
		if lo, hi := int(e>>32), int(e&0xffffffff)-1; hi-lo == len(w) && string(buf[lo:hi]) == string(w) {
			return s, false
		}
	}
}

// grown returns s's pieces in twice the slots.
func (s wordSet) grown(buf []byte) []uint64 {
	slots := make([]uint64, 2*len(s.slots))
	mask := uint64(len(slots) - 1)
	for _, e := range s.slots {
		if e == 0 {
			continue
		}
		i := mix(wordHash(buf[e>>32:e&0xffffffff-1])) & mask
		for slots[i] != 0 {
			i = (i + 1) & mask
		}
		slots[i] = e
	}
	return slots
}

// mix spreads FNV's high bits into the low ones that pick a slot.
func mix(h uint64) uint64 {
	h ^= h >> 33
	h *= 0xff51afd7ed558ccd
	return h ^ h>>33
}

// separator reports whether unicode61, as the index configures it, reads
// byte c as a separator: any ASCII byte but a letter or a digit (the rule
// wordTokens splits ASCII query words by, too). Bytes of other characters
// are not separators here; the tokenizer decides.
func separator(c byte) bool {
	return c < 0x80 && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}
