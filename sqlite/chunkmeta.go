package sqlite

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// A packed meta (chunks of codecPacked) holds the same fields as the
// meta of older chunks, a column at a time, so that a reader that needs
// only where each line's bytes are (a block's view, a search snippet)
// reads the sizes, the first column, and stops:
//
//   - sizes: a uvarint per line;
//   - offsets: the first line's as a varint, then each line's distance
//     from where the line before ended (0 in a file read in order);
//   - types and statuses: a uvarint per line, 0 for a string not seen
//     before in the chunk (its length and bytes follow), k for the k-th
//     string seen (types and statuses are a few words);
//   - uuids and parent uuids: a byte per line, [idEmpty], [idInLine] (a
//     uvarint follows: how far from the line's end the 36 bytes of the
//     uuid are in the line itself, where a Claude Code line has them), [idCanonical]
//     (16 bytes follow: a lower-case 8-4-4-4-12 uuid), [idLiteral] (a
//     uvarint length and the bytes: any other string, kept as it is) or,
//     for a parent, [idPrevious] (the line before's uuid, as in a chain
//     of replies);
//   - timestamps: a uvarint per line, 0 for none, else 1 + the zigzag of
//     its Unix milliseconds less the last timestamp's before it;
//   - rounds: a varint per line, its round less the line before's.
//
// At 36 bytes a uuid, two to a line, the older meta was 19.5 MB of the
// 285 MB the 1 GB bench store held, and a uuid is random: compressing
// leaves 16 bytes of it wherever it is written a second time. Packed, the
// same store's meta is 3.0 MB. Every string still reads back byte for
// byte (TestPackedMeta, FuzzPackedMeta).
const (
	idEmpty = iota
	idCanonical
	idLiteral
	idPrevious
	idInLine
)

// inLine returns where s is in raw, or -1. It looks near one end first,
// the end when tail is set, else the start: a Claude Code line has its
// uuid a few hundred bytes from its end (86 % of the real transcripts'
// lines within 128) and its parent's within its first 64. Looking at the
// last and first KiB first cost an import of 1 GB a second more.
func inLine(raw []byte, s string, tail bool) int {
	for _, near := range [...]int{256, 4096} {
		if len(raw) <= 2*near {
			break
		}
		if !tail {
			if i := strings.Index(string(raw[:near]), s); i >= 0 {
				return i
			}
			continue
		}
		if i := strings.Index(string(raw[len(raw)-near:]), s); i >= 0 {
			return len(raw) - near + i
		}
	}
	return strings.Index(string(raw), s)
}

// uuidLen is the length of a uuid [idInLine] finds.
const uuidLen = 36

// encodePacked returns the packed meta of lines, uncompressed.
func encodePacked(lines []*cairn.Line) []byte {
	n := len(lines)
	buf := make([]byte, 0, 48*n)
	for _, l := range lines {
		buf = binary.AppendUvarint(buf, uint64(len(l.Raw)))
	}
	var end int64
	for i, l := range lines {
		if i == 0 {
			buf = binary.AppendVarint(buf, l.Offset)
		} else {
			buf = binary.AppendVarint(buf, l.Offset-end)
		}
		end = l.Offset + int64(len(l.Raw))
	}
	words := func(get func(*cairn.Line) string) {
		var seen []string
	next:
		for _, l := range lines {
			s := get(l)
			for k, w := range seen {
				if w == s {
					buf = binary.AppendUvarint(buf, uint64(k+1))
					continue next
				}
			}
			seen = append(seen, s)
			buf = binary.AppendUvarint(buf, 0)
			buf = binary.AppendUvarint(buf, uint64(len(s)))
			buf = append(buf, s...)
		}
	}
	words(func(l *cairn.Line) string { return l.Type })
	words(func(l *cairn.Line) string { return string(l.Status) })
	id := func(s string, raw []byte, prev string, chain, tail bool) {
		if s == "" {
			buf = append(buf, idEmpty)
			return
		}
		if chain && s == prev {
			buf = append(buf, idPrevious)
			return
		}
		if len(s) == uuidLen {
			if i := inLine(raw, s, tail); i >= 0 {
				buf = append(buf, idInLine)
				buf = binary.AppendUvarint(buf, uint64(len(raw)-i))
				return
			}
		}
		if u, ok := packUUID(s); ok {
			buf = append(buf, idCanonical)
			buf = append(buf, u[:]...)
			return
		}
		buf = append(buf, idLiteral)
		buf = binary.AppendUvarint(buf, uint64(len(s)))
		buf = append(buf, s...)
	}
	for _, l := range lines {
		id(l.UUID, l.Raw, "", false, true)
	}
	for i, l := range lines {
		prev := ""
		if i > 0 {
			prev = lines[i-1].UUID
		}
		id(l.ParentUUID, l.Raw, prev, i > 0, false)
	}
	var last int64
	for _, l := range lines {
		if l.Timestamp.IsZero() {
			buf = binary.AppendUvarint(buf, 0)
			continue
		}
		ms := l.Timestamp.UnixMilli()
		d := ms - last
		buf = binary.AppendUvarint(buf, 1+uint64(d<<1^d>>63))
		last = ms
	}
	round := 0
	for _, l := range lines {
		buf = binary.AppendVarint(buf, int64(l.RoundSeq-round))
		round = l.RoundSeq
	}
	return buf
}

// packUUID returns s as 16 bytes if it is a canonical uuid: lower-case
// hex in groups of 8, 4, 4, 4 and 12, so that formatting them gives s.
func packUUID(s string) (u [16]byte, ok bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, false
	}
	j := 0
	for _, g := range [5][2]int{{0, 8}, {9, 13}, {14, 18}, {19, 23}, {24, 36}} {
		for i := g[0]; i < g[1]; i += 2 {
			hi, ok1 := lowerHex(s[i])
			lo, ok2 := lowerHex(s[i+1])
			if !ok1 || !ok2 {
				return u, false
			}
			u[j] = hi<<4 | lo
			j++
		}
	}
	return u, true
}

func lowerHex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	}
	return 0, false
}

// unpackUUID formats a canonical uuid's 16 bytes.
func unpackUUID(u []byte) string {
	var b [36]byte
	hex.Encode(b[0:8], u[0:4])
	b[8] = '-'
	hex.Encode(b[9:13], u[4:6])
	b[13] = '-'
	hex.Encode(b[14:18], u[6:8])
	b[18] = '-'
	hex.Encode(b[19:23], u[8:10])
	b[23] = '-'
	hex.Encode(b[24:36], u[10:16])
	return string(b[:])
}

// A metaReader reads a packed meta, remembering the first fault.
type metaReader struct {
	buf []byte
	bad bool
}

func (r *metaReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.buf)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *metaReader) varint() int64 {
	v, n := binary.Varint(r.buf)
	if n <= 0 {
		r.bad = true
		return 0
	}
	r.buf = r.buf[n:]
	return v
}

func (r *metaReader) bytes(n uint64) []byte {
	if r.bad || n > uint64(len(r.buf)) {
		r.bad = true
		return nil
	}
	b := r.buf[:n]
	r.buf = r.buf[n:]
	return b
}

func (r *metaReader) byte() byte {
	if b := r.bytes(1); b != nil {
		return b[0]
	}
	return 0
}

// packedSizes returns the sizes of a packed meta's n lines, reading no
// further.
func packedSizes(meta []byte, n int, sizes []int) ([]int, error) {
	r := metaReader{buf: meta}
	for range n {
		sizes = append(sizes, int(r.uvarint()))
	}
	if r.bad {
		return sizes, fmt.Errorf("the sizes of its %d lines do not read", n)
	}
	return sizes, nil
}

// decodePacked fills lines from a packed meta and data, the chunk's raw
// bytes.
func decodePacked(id int64, meta, data []byte, lines []*cairn.Line) error {
	n := len(lines)
	sizes, err := packedSizes(meta, n, make([]int, 0, n))
	if err != nil {
		return fmt.Errorf("chunk %d: %w", id, err)
	}
	if err := fillRaw(id, data, sizes, lines); err != nil {
		return err
	}
	r := metaReader{buf: meta}
	for range n {
		r.uvarint()
	}
	var end int64
	for i, l := range lines {
		l.Offset = r.varint()
		if i > 0 {
			l.Offset += end
		}
		end = l.Offset + int64(sizes[i])
	}
	words := func(set func(*cairn.Line, string)) {
		var seen []string
		for _, l := range lines {
			k := r.uvarint()
			if k == 0 {
				seen = append(seen, string(r.bytes(r.uvarint())))
				k = uint64(len(seen))
			}
			if k > uint64(len(seen)) {
				r.bad = true
				return
			}
			set(l, seen[k-1])
		}
	}
	words(func(l *cairn.Line, s string) { l.Type = s })
	words(func(l *cairn.Line, s string) { l.Status = cairn.LineStatus(s) })
	uuid := func(raw []byte, prev string) string {
		switch r.byte() {
		case idEmpty:
			return ""
		case idInLine:
			back := r.uvarint()
			if back >= uuidLen && back <= uint64(len(raw)) {
				at := len(raw) - int(back)
				return string(raw[at : at+uuidLen])
			}
			r.bad = true
		case idCanonical:
			if u := r.bytes(16); u != nil {
				return unpackUUID(u)
			}
		case idLiteral:
			return string(r.bytes(r.uvarint()))
		case idPrevious:
			return prev
		default:
			r.bad = true
		}
		return ""
	}
	for _, l := range lines {
		l.UUID = uuid(l.Raw, "")
	}
	for i, l := range lines {
		prev := ""
		if i > 0 {
			prev = lines[i-1].UUID
		}
		l.ParentUUID = uuid(l.Raw, prev)
	}
	var last int64
	for _, l := range lines {
		z := r.uvarint()
		if z == 0 {
			l.Timestamp = time.Time{}
			continue
		}
		z--
		last += int64(z>>1) ^ -int64(z&1)
		l.Timestamp = time.UnixMilli(last).UTC()
	}
	round := 0
	for _, l := range lines {
		round += int(r.varint())
		l.RoundSeq = round
	}
	if r.bad || len(r.buf) != 0 {
		return fmt.Errorf("chunk %d: its meta does not read (%d bytes left)", id, len(r.buf))
	}
	return nil
}
