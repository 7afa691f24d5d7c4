package claudecode

import (
	"bytes"
	"strings"
	"testing"
)

// TestParseLine_LongValues checks that a long line's message content is a
// slice of the line's bytes, not a copy: a message of a million blocks
// was held twice while its line was read.
func TestParseLine_LongValues(t *testing.T) {
	content := `[` + strings.Repeat(`{"type":"text","text":"block word"},`, wideContent/30) + `{"type":"text","text":"last"}]`
	line := []byte(`{"type":"assistant","uuid":"a1","message":{"id":"m1","role":"assistant","content":` + content + `}}` + "\n")
	e, status := parseLine(line)
	if e == nil || e.Message == nil {
		t.Fatalf("parseLine: %v", status)
	}
	got := e.Message.Content
	if string(got) != content {
		t.Fatalf("content of %d bytes, want %d", len(got), len(content))
	}
	at := bytes.Index(line, []byte(content))
	if &got[0] != &line[at] {
		t.Errorf("the content is a copy, not a slice of the line")
	}
	if cap(got) != len(got) {
		t.Errorf("content's capacity %d reaches past it (%d bytes)", cap(got), len(got))
	}
	short := []byte(`{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]}}`)
	if e, _ := parseLine(short); e == nil || &e.Message.Content[0] == &short[bytes.IndexByte(short, '[')] {
		t.Errorf("a short line's content is not a copy")
	}
}
