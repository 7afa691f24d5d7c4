package sqlite

import (
	"bytes"
	"context"
	"fmt"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"

	"github.com/go-json-experiment/json/jsontext"
)

// Block text as a view of its stored line (migration 0012). A block's text
// is nearly always in its line already: as the value of a JSON string (a
// message's text, a tool's output) or as the bytes themselves (a tool
// call's input). Where it is found, the block records where (blocks.span)
// instead of the text, and reads it back from the line; where it is not
// (text the reader joined from several parts), the block keeps its text.
// A view is only recorded once reading it back gives the text byte for
// byte, so a read never depends on how the line was parsed.

// viewMin is the shortest text a block views rather than keeps: a span
// costs up to 8 bytes, and a short text is often found at the wrong place
// anyway (harmless, but no gain).
var viewMin = 16 // a variable for tests

// A view is where a block's text is in its line: bytes off..off+n, either
// the text itself or, when quoted, a JSON string whose value it is.
type view struct {
	off, n int
	quoted bool
}

// maxView bounds a view's offset and length, so that both fit one column.
const maxView = 1<<31 - 1

// pack returns v as blocks.span holds it: the offset in the high 32 bits,
// the length above the lowest bit, which says whether it is quoted.
func (v view) pack() int64 {
	p := int64(v.off)<<32 | int64(v.n)<<1
	if v.quoted {
		p |= 1
	}
	return p
}

func unpackView(p int64) view {
	return view{off: int(p >> 32), n: int(p>>1) & maxView, quoted: p&1 == 1}
}

// text returns the text v views in raw.
func (v view) text(raw []byte) (string, error) {
	if v.off < 0 || v.n < 0 || v.off+v.n > len(raw) {
		return "", fmt.Errorf("bytes %d–%d of a line of %d", v.off, v.off+v.n, len(raw))
	}
	b := raw[v.off : v.off+v.n]
	if !v.quoted {
		return string(b), nil
	}
	if len(b) < 2 || b[0] != '"' || b[len(b)-1] != '"' {
		return "", fmt.Errorf("bytes %d–%d are not a JSON string", v.off, v.off+v.n)
	}
	out, err := unquote(b)
	if err != nil {
		return "", fmt.Errorf("bytes %d–%d: %w", v.off, v.off+v.n, err)
	}
	return out, nil
}

// unquote returns the value of the JSON string q, as
// [jsontext.AppendUnquote] does for a valid one, faster: reading a long
// session unquotes most of its bytes. The escapes a transcript holds
// (\n, \", \\, \t, \u001b) are decoded here; a \u escape of a
// surrogate, and an invalid escape, are left to jsontext. Invalid UTF-8
// or control characters are passed through, where jsontext replaces or
// refuses them: a view is only recorded when it reads back its text, so
// a text a reader cleaned of them is never a view.
func unquote(q []byte) (string, error) {
	body := q[1 : len(q)-1]
	i := bytes.IndexByte(body, '\\')
	if i < 0 && bytes.IndexByte(body, '"') < 0 {
		return string(body), nil
	}
	out := make([]byte, 0, len(body))
	for {
		if i < 0 {
			i = len(body)
		}
		if bytes.IndexByte(body[:i], '"') >= 0 {
			return slowUnquote(q)
		}
		out, body = append(out, body[:i]...), body[i:]
		if len(body) == 0 {
			return string(out), nil
		}
		if len(body) < 2 {
			return slowUnquote(q)
		}
		switch c := body[1]; c {
		case '"', '\\', '/':
			out = append(out, c)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := hex4(body[2:])
			if !ok || utf16.IsSurrogate(r) {
				return slowUnquote(q)
			}
			out = utf8.AppendRune(out, r)
			body = body[4:]
		default:
			return slowUnquote(q)
		}
		body = body[2:]
		i = bytes.IndexByte(body, '\\')
	}
}

// hex4 reads the four hex digits of a \u escape.
func hex4(b []byte) (rune, bool) {
	if len(b) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}

func slowUnquote(q []byte) (string, error) {
	out, err := jsontext.AppendUnquote(nil, q)
	return string(out), err
}

// A viewFinder finds the views of a run of blocks in their lines. The
// blocks of a line come in the order of their text in it, so each search
// starts where the last one of the same line ended.
type viewFinder struct {
	line   int // the line of the last view found
	from   int // where it ended
	misses int // texts of the line not found since
	quote  []byte
}

// Bounds of the search for a view, so that a line of a million blocks
// whose texts are not in it is not searched through for each: a text is
// looked for within viewWindow bytes past the last one found, and after
// viewMisses texts of a line in a row were not found, the rest of the
// line's blocks keep theirs.
const (
	viewWindow = 1 << 20
	viewMisses = 64
)

// find returns where text is in raw, line no.
func (f *viewFinder) find(raw []byte, no int, text string) (view, bool) {
	if len(text) < viewMin || len(raw) > maxView {
		return view{}, false
	}
	if no != f.line {
		f.line, f.from, f.misses = no, 0, 0
	}
	if f.misses >= viewMisses {
		return view{}, false
	}
	var err error
	f.quote, err = jsontext.AppendQuote(f.quote[:0], text)
	if err == nil {
		if off := f.index(raw, f.quote); off >= 0 {
			// Read back as every reader will: a view is only kept if it
			// gives the text byte for byte.
			v := view{off: off, n: len(f.quote), quoted: true}
			if back, err := v.text(raw); err == nil && back == text {
				return f.found(v), true
			}
		}
	}
	if off := f.index(raw, []byte(text)); off >= 0 {
		return f.found(view{off: off, n: len(text)}), true
	}
	f.misses++
	return view{}, false
}

func (f *viewFinder) found(v view) view {
	f.from, f.misses = v.off+v.n, 0
	return v
}

// index returns the offset of pat in raw, looked for in the window from
// f.from on, then, in a line short enough to look through again, before
// it (-1 if not found). A long line (a message of a million blocks) is
// never searched from its start for each block.
func (f *viewFinder) index(raw, pat []byte) int {
	from := min(f.from, len(raw))
	if i := indexLong(raw[from:min(len(raw), from+len(pat)+viewWindow)], pat); i >= 0 {
		return from + i
	}
	if f.from > 0 && len(raw) <= 1<<20 {
		return indexLong(raw[:min(len(raw), f.from+len(pat))], pat)
	}
	return -1
}

// indexLong returns the offset of the first pat in s, or -1, as
// bytes.Index does, faster for a long pat (a block's text): bytes.Index
// hashes the whole of a pattern over 64 bytes (Rabin-Karp) before it
// looks, where indexLong looks for its first 32 bytes with the vector
// search bytes.Index has for short ones and compares the rest where
// they are. After a few places where only the first bytes match (a text
// that repeats itself), the rest of s is left to bytes.Index.
func indexLong(s, pat []byte) int {
	const head, tries = 32, 8
	if len(pat) <= 64 {
		return bytes.Index(s, pat)
	}
	off := 0
	for range tries {
		i := bytes.Index(s[off:], pat[:head])
		if i < 0 {
			return -1
		}
		if off += i; bytes.HasPrefix(s[off:], pat) {
			return off
		}
		off++
	}
	if i := bytes.Index(s[off:], pat); i >= 0 {
		return off + i
	}
	return -1
}

// A lineSource gives the raw lines of one session's generation that the
// blocks being written come from: those of the batch, and, for the
// blocks of a round that began in an earlier batch, the stored ones,
// read once, when first needed.
type lineSource struct {
	session string
	lines   map[int][]byte
	// stored, when not nil, reads the session's stored lines from..to;
	// lo..hi are the lines to read with it.
	stored func(ctx context.Context, tx *Tx, from, to int) ([]*cairn.Line, error)
	lo, hi int
	finder viewFinder
	// pre holds what prepare computed of blocks ahead of the write
	// transaction.
	pre map[*cairn.Block]prepared
}

// What is prepared of a block before its transaction: its stored text
// and view (if viewed), its search index text (if indexed).
type prepared struct {
	content         string
	span            any
	index           string
	viewed, indexed bool
}

// prepare computes, ahead of the write transaction and on the caller's
// goroutine, what writing blocks needs that reads nothing stored: the
// view of each block whose line is among the batch's, and the index text
// of each searchable block. A group's transaction then only writes them,
// while the importers of other files prepare theirs (this was a fifth of
// the writer's time, on one core, while the other waited).
func (src *lineSource) prepare(blocks [][]*cairn.Block) {
	src.pre = map[*cairn.Block]prepared{}
	for _, bs := range blocks {
		for _, b := range bs {
			var p prepared
			if _, ok := src.lines[b.LineNo]; ok || b.SessionID != src.session || len(b.Content) < viewMin {
				// No stored line to read: view cannot fail.
				p.content, p.span, _ = src.view(context.Background(), nil, b)
				p.viewed = true
			}
			if b.Kind.Searchable() && !b.Sidechain {
				p.index, p.indexed = indexText(b), true
			}
			src.pre[b] = p
		}
	}
}

// indexText returns b's search index text, as prepared or computed now.
func (src *lineSource) indexText(b *cairn.Block) string {
	if src != nil {
		if p, ok := src.pre[b]; ok && p.indexed {
			return p.index
		}
	}
	return indexText(b)
}

// newLineSource returns the source of lines for blocks of session id.
func newLineSource(id string, lines []*cairn.Line) *lineSource {
	src := &lineSource{session: id, lines: make(map[int][]byte, len(lines))}
	for _, l := range lines {
		src.lines[l.No] = l.Raw
	}
	return src
}

// withStored has src read lines from..to of the session's current
// generation from the store when a block needs one of them.
func (src *lineSource) withStored(from, to int) *lineSource {
	if from >= 1 && to >= from {
		src.stored, src.lo, src.hi = func(ctx context.Context, tx *Tx, from, to int) ([]*cairn.Line, error) {
			return findRaw(ctx, tx, src.session, from, to)
		}, from, to
	}
	return src
}

// view returns b's text to store and its view (0 for none): the text is
// "" when it is viewed.
func (src *lineSource) view(ctx context.Context, tx *Tx, b *cairn.Block) (string, any, error) {
	if src == nil || b.SessionID != src.session || len(b.Content) < viewMin {
		return b.Content, nil, nil
	}
	if p, ok := src.pre[b]; ok && p.viewed {
		return p.content, p.span, nil
	}
	raw, ok := src.lines[b.LineNo]
	if !ok && src.stored != nil && b.LineNo >= src.lo && b.LineNo <= src.hi {
		lines, err := src.stored(ctx, tx, src.lo, src.hi)
		if err != nil {
			return "", nil, err
		}
		src.stored = nil
		for _, l := range lines {
			src.lines[l.No] = l.Raw
		}
		raw, ok = src.lines[b.LineNo]
	}
	if !ok {
		return b.Content, nil, nil
	}
	v, ok := src.finder.find(raw, b.LineNo, b.Content)
	if !ok {
		return b.Content, nil, nil
	}
	return "", v.pack(), nil
}

// A viewed block is one read with a view to resolve against its line.
type viewed struct {
	block *cairn.Block
	span  int64
}

// resolveViews reads the whole text of blocks that view lines of their
// session (one session's, all of them), from pre if it holds their lines
// (see [openRaw]), else from a stream of its own. A round's page reads its
// texts with a [pageReader] instead, which holds no line.
func resolveViews(ctx context.Context, tx *Tx, sessionID string, blocks []viewed, pre *rawStream) error {
	if len(blocks) == 0 {
		return nil
	}
	from, to := blocks[0].block.LineNo, blocks[0].block.LineNo
	for _, b := range blocks {
		from, to = min(from, b.block.LineNo), max(to, b.block.LineNo)
	}
	src := pre
	if src == nil || src.from > from || src.to < to {
		var err error
		if src, err = openRaw(ctx, tx, sessionID, from, to); err != nil {
			return err
		}
		defer src.close()
	}
	byLine := make(map[int][]int, len(blocks))
	for i, b := range blocks {
		byLine[b.block.LineNo] = append(byLine[b.block.LineNo], i)
	}
	read := make([]bool, len(blocks))
	err := src.each(func(no int, raw []byte) error {
		for _, i := range byLine[no] {
			b := blocks[i]
			text, err := unpackView(b.span).text(raw)
			if err != nil {
				return &cairn.Damaged{Session: sessionID, First: no, Last: no, Err: fmt.Errorf("block %d's text: %w", b.block.ID, err)}
			}
			b.block.Content = text
			read[i] = true
		}
		return nil
	})
	if d, ok := err.(*cairn.Damaged); ok {
		d.Generation = src.gen
	}
	if err != nil {
		return err
	}
	for i, b := range blocks {
		if !read[i] {
			return &cairn.Damaged{Session: sessionID, Generation: src.gen, First: b.block.LineNo, Last: b.block.LineNo,
				Err: fmt.Errorf("block %d's text: line %d is not stored", b.block.ID, b.block.LineNo)}
		}
	}
	return nil
}
