package term

import "testing"

// TestScreen feeds the screen what the client writes: words placed by
// column, a line redrawn in part, a cut escape sequence, erasures,
// scrolling.
func TestScreen(t *testing.T) {
	s := newScreen(3, 20)
	s.Write([]byte("\x1b[3G\x1b[1mNew\x1b[7GMCP\x1b[22m\r\n"))
	s.Write([]byte("cairn ctx 0%\r\n"))
	// Only the changed cells are redrawn, the sequence cut by a read.
	s.Write([]byte("\x1b[1A\x1b[1"))
	s.Write([]byte("1G75%"))
	if got, want := s.String(), "  New MCP\ncairn ctx 75%"; got != want {
		t.Fatalf("screen %q, want %q", got, want)
	}
	s.Write([]byte("\x1b[2K\rgone\r\nthird ✻ é\r\nfourth"))
	if got, want := s.String(), "gone\nthird ✻ é\nfourth"; got != want {
		t.Fatalf("after scrolling %q, want %q", got, want)
	}
	s.Write([]byte("\x1b[H\x1b[J\x1b]8;;https://x\x07link\x1b]8;;\x07"))
	if got, want := s.String(), "link"; got != want {
		t.Fatalf("after erasing %q, want %q", got, want)
	}
	// A character cut by a read.
	b := []byte("é")
	s.Write(b[:1])
	s.Write(b[1:])
	if got, want := s.String(), "linké"; got != want {
		t.Fatalf("a cut character: %q, want %q", got, want)
	}
	// Queries a program waits on are answered; others are not.
	s.Write([]byte("\x1b[6n\x1b[?u\x1b[c\x1b]11;?\x07"))
	if got, want := string(s.Replies()), "\x1b[1;6R\x1b[?62;22c\x1b]11;rgb:0000/0000/0000\x1b\\"; got != want {
		t.Fatalf("replies %q, want %q", got, want)
	}
	if r := s.Replies(); len(r) != 0 {
		t.Fatalf("replies sent twice: %q", r)
	}
}

func TestInOrder(t *testing.T) {
	s := "> first\n✦ ONE\n> second\n✦ TWO"
	if got := InOrder(s, "first", "ONE", "second", "TWO"); got != "" {
		t.Errorf("in order: %q missing", got)
	}
	if got := InOrder(s, "second", "ONE"); got != "ONE" {
		t.Errorf("out of order: %q missing, want ONE", got)
	}
}
