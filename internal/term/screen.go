package term

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A screen is a small terminal emulator: enough of one to know what the
// client's full-screen interface shows. The client redraws only the cells
// that changed (moving the cursor over the rest), so the text it writes is
// not what a person reads; the screen is. It keeps the cells of rows×cols,
// follows the cursor movements, erasures and scrolling the client uses,
// and ignores colours, modes and hyperlinks. Every character is taken to
// be one cell wide.
type screen struct {
	rows, cols int
	cells      [][]rune
	row, col   int
	savedRow   int
	savedCol   int
	pending    []byte // an escape sequence or a character cut by a read
	replies    []byte // answers to the program's queries, not yet sent
}

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols, cells: make([][]rune, rows)}
	for i := range s.cells {
		s.cells[i] = blank(cols)
	}
	return s
}

func blank(n int) []rune {
	r := make([]rune, n)
	for i := range r {
		r[i] = ' '
	}
	return r
}

// String returns the rows, trailing spaces and trailing empty rows cut.
func (s *screen) String() string {
	lines := make([]string, len(s.cells))
	for i, r := range s.cells {
		lines[i] = strings.TrimRight(string(r), " ")
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\n")
}

// Write feeds what the client wrote.
func (s *screen) Write(p []byte) {
	b := append(s.pending, p...)
	s.pending = nil
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == 0x1b:
			n := escapeLen(b[i:])
			if n == 0 { // cut by the read: wait for the rest
				s.pending = append([]byte(nil), b[i:]...)
				return
			}
			s.escape(b[i : i+n])
			i += n
			continue
		case c == '\r':
			s.col = 0
		case c == '\n':
			s.lineFeed()
		case c == '\b':
			s.col = max(0, s.col-1)
		case c == '\t':
			s.col = min(s.cols-1, (s.col/8+1)*8)
		case c < 0x20 || c == 0x7f:
		default:
			r, n := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && n == 1 && !utf8.FullRune(b[i:]) {
				s.pending = append([]byte(nil), b[i:]...)
				return
			}
			s.put(r)
			i += n
			continue
		}
		i++
	}
}

func (s *screen) put(r rune) {
	if s.col >= s.cols {
		s.col = 0
		s.lineFeed()
	}
	s.cells[s.row][s.col] = r
	s.col++
}

func (s *screen) lineFeed() {
	if s.row < s.rows-1 {
		s.row++
		return
	}
	copy(s.cells, s.cells[1:])
	s.cells[s.rows-1] = blank(s.cols)
}

// escapeLen is the length of the escape sequence b starts with, 0 if b
// ends before it does.
func escapeLen(b []byte) int {
	if len(b) < 2 {
		return 0
	}
	switch b[1] {
	case '[': // CSI: parameters, intermediates, a final byte
		for i := 2; i < len(b); i++ {
			if b[i] >= 0x40 && b[i] <= 0x7e {
				return i + 1
			}
		}
		return 0
	case ']', 'P', '^', '_': // OSC, DCS…: up to BEL or ESC \
		for i := 2; i < len(b); i++ {
			if b[i] == 0x07 {
				return i + 1
			}
			if b[i] == 0x1b && i+1 < len(b) && b[i+1] == '\\' {
				return i + 2
			}
		}
		return 0
	case '(', ')', '*', '+', '#', '%':
		if len(b) < 3 {
			return 0
		}
		return 3
	}
	return 2
}

func (s *screen) escape(seq []byte) {
	switch seq[1] {
	case '7':
		s.savedRow, s.savedCol = s.row, s.col
	case '8':
		s.row, s.col = s.savedRow, s.savedCol
	case 'M': // reverse index
		s.row = max(0, s.row-1)
	case 'c':
		*s = *newScreen(s.rows, s.cols)
	case '[':
		s.csi(seq[2:len(seq)-1], seq[len(seq)-1])
	case ']':
		s.osc(string(seq[2:]))
	}
}

func (s *screen) csi(params []byte, final byte) {
	if len(params) > 0 && (params[0] == '?' || params[0] == '>' || params[0] == '<' || params[0] == '=') {
		return // private modes and queries: cursor shown, bracketed paste, synchronized output…
	}
	switch {
	case final == 'n' && string(params) == "6": // where is the cursor
		s.replies = fmt.Appendf(s.replies, "\x1b[%d;%dR", s.row+1, s.col+1)
		return
	case final == 'c' && (len(params) == 0 || string(params) == "0"): // what terminal is this: a VT220
		s.replies = append(s.replies, "\x1b[?62;22c"...)
		return
	}
	var ps []int
	for _, f := range strings.Split(string(params), ";") {
		n, _ := strconv.Atoi(f)
		ps = append(ps, n)
	}
	arg := func(i, def int) int {
		if i < len(ps) && ps[i] > 0 {
			return ps[i]
		}
		return def
	}
	clamp := func() {
		s.row = min(max(s.row, 0), s.rows-1)
		s.col = min(max(s.col, 0), s.cols-1)
	}
	switch final {
	case 'A':
		s.row -= arg(0, 1)
		clamp()
	case 'B':
		s.row += arg(0, 1)
		clamp()
	case 'C':
		s.col += arg(0, 1)
		clamp()
	case 'D':
		s.col -= arg(0, 1)
		clamp()
	case 'E':
		s.row, s.col = s.row+arg(0, 1), 0
		clamp()
	case 'F':
		s.row, s.col = s.row-arg(0, 1), 0
		clamp()
	case 'G':
		s.col = arg(0, 1) - 1
		clamp()
	case 'd':
		s.row = arg(0, 1) - 1
		clamp()
	case 'H', 'f':
		s.row, s.col = arg(0, 1)-1, arg(1, 1)-1
		clamp()
	case 'J':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.row, s.col, s.cols)
			for r := s.row + 1; r < s.rows; r++ {
				s.cells[r] = blank(s.cols)
			}
		case 1:
			for r := 0; r < s.row; r++ {
				s.cells[r] = blank(s.cols)
			}
			s.eraseLine(s.row, 0, s.col+1)
		default:
			for r := range s.cells {
				s.cells[r] = blank(s.cols)
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			s.eraseLine(s.row, s.col, s.cols)
		case 1:
			s.eraseLine(s.row, 0, s.col+1)
		default:
			s.eraseLine(s.row, 0, s.cols)
		}
	case 'S':
		for i := 0; i < arg(0, 1); i++ {
			copy(s.cells, s.cells[1:])
			s.cells[s.rows-1] = blank(s.cols)
		}
	}
}

// osc answers the colour queries: white on black, as a dark terminal,
// rather than leave the program to wait for an answer that never comes.
func (s *screen) osc(body string) {
	body = strings.TrimSuffix(strings.TrimSuffix(body, "\x07"), "\x1b\\")
	switch body {
	case "10;?":
		s.replies = append(s.replies, "\x1b]10;rgb:ffff/ffff/ffff\x1b\\"...)
	case "11;?":
		s.replies = append(s.replies, "\x1b]11;rgb:0000/0000/0000\x1b\\"...)
	}
}

// Replies returns the answers to the queries written since it was last
// called: a program that asks where the cursor is or what the terminal
// is waits for them, as in a real terminal.
func (s *screen) Replies() []byte {
	r := s.replies
	s.replies = nil
	return r
}

func (s *screen) eraseLine(row, from, to int) {
	for c := from; c < min(to, s.cols); c++ {
		s.cells[row][c] = ' '
	}
}
