package sqlite

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// metaLines returns lines meant to trip a packed meta: uuids that are
// not canonical (upper case, braces, too short), a parent that is the
// line before's uuid and one that is not, no timestamp between two,
// timestamps going back, rounds going back, offsets out of order, and
// strings that are not words.
func metaLines() []*cairn.Line {
	at := func(s string) time.Time {
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			panic(err)
		}
		return t.UTC()
	}
	return []*cairn.Line{
		{No: 1, Offset: 0, Raw: []byte("a\n"), Type: "user", UUID: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", Timestamp: at("2026-02-11T21:41:00.123Z"), RoundSeq: 1, Status: cairn.LineOK},
		{No: 2, Offset: 2, Raw: []byte("bb\n"), Type: "assistant", UUID: "1b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", ParentUUID: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", Timestamp: at("2026-02-11T21:41:01.500Z"), RoundSeq: 1, Status: cairn.LineOK},
		{No: 3, Offset: 5, Raw: []byte("c\n"), Type: "assistant", UUID: "1B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0", ParentUUID: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", RoundSeq: 1, Status: cairn.LineOK},
		{No: 4, Offset: 7, Raw: []byte("{\n"), Type: "", UUID: "{2b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0}", ParentUUID: "1B1C2D3E-4F50-6172-8394-A5B6C7D8E9F0", Timestamp: at("2026-02-11T21:40:59Z"), RoundSeq: 0, Status: cairn.LineInvalidJSON},
		{No: 5, Offset: 100, Raw: []byte("\n"), Type: "summary", UUID: "short", ParentUUID: "short", RoundSeq: 3, Status: cairn.LineBlank},
		{No: 6, Offset: 50, Raw: []byte(""), Type: "user", UUID: "2b1c2d3e-4f50-6172-8394-a5b6c7d8e9fg", ParentUUID: "x", Timestamp: at("1960-01-01T00:00:00Z"), RoundSeq: 2, Status: "state \x00 ü"},
		{No: 7, Offset: 51, Raw: []byte("dd\n"), Type: "user", UUID: "", ParentUUID: "", Timestamp: at("2099-12-31T23:59:59.999Z"), RoundSeq: 2, Status: cairn.LineOK},
		{No: 8, Offset: 54, Raw: []byte("e\n"), Type: "user", UUID: "3b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", ParentUUID: "", Timestamp: at("2099-12-31T23:59:59.999Z"), RoundSeq: 2, Status: cairn.LineOK},
		{No: 9, Offset: 56, Raw: []byte(`{"parentUuid":"4b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","uuid":"5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}` + "\n"),
			Type: "user", UUID: "5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", ParentUUID: "4b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", RoundSeq: 4, Status: cairn.LineOK},
		{No: 10, Offset: 158, Raw: []byte(`{"parentUuid":"5b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","text":"` + strings.Repeat("x", 3000) + `","uuid":"6b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0"}` + "\n"),
			Type: "assistant", UUID: "6b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", ParentUUID: "7b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", RoundSeq: 4, Status: cairn.LineOK},
		{No: 11, Offset: 3265, Raw: []byte(`{"parentUuid":"8b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","text":"` + strings.Repeat("x", 3000) + `","uuid":"6b1c2d3e"}` + "\n"),
			Type: "assistant", UUID: "6b1c2d3e", ParentUUID: "8b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", RoundSeq: 4, Status: cairn.LineOK},
		{No: 12, Offset: 6372, Raw: []byte(`{"text":"` + strings.Repeat("y", 6000) + `","uuid":"9b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","parentUuid":"ab1c2d3e-4f50-6172-8394-a5b6c7d8e9f0","more":"` + strings.Repeat("z", 6000) + `"}` + "\n"),
			Type: "assistant", UUID: "9b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", ParentUUID: "ab1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", RoundSeq: 4, Status: cairn.LineOK},
	}
}

// TestPackedMeta: every field of every line reads back as it was, in
// the packed meta as in the older one, and the sizes alone read back
// from either.
func TestPackedMeta(t *testing.T) {
	lines := metaLines()
	var data []byte
	for _, l := range lines {
		data = append(data, l.Raw...)
	}
	for _, c := range []codec{codecZstd, codecPacked} {
		meta := encodeMeta(c, lines)
		back := make([]*cairn.Line, len(lines))
		for i := range back {
			back[i] = &cairn.Line{No: i + 1}
		}
		if err := decodeMeta(1, c, data, meta, back); err != nil {
			t.Fatalf("codec %d: %v", c, err)
		}
		if diff := cmp.Diff(lines, back); diff != "" {
			t.Errorf("codec %d: lines read back differently (-wrote +read):\n%s", c, diff)
		}
		sizes, err := metaSizes(1, c, meta, len(lines), nil)
		if err != nil {
			t.Fatalf("codec %d sizes: %v", c, err)
		}
		for i, l := range lines {
			if sizes[i] != len(l.Raw) {
				t.Errorf("codec %d: line %d's size reads back %d, want %d", c, l.No, sizes[i], len(l.Raw))
			}
		}
		if err := decodeMeta(1, c, data[1:], meta, back); err == nil {
			t.Errorf("codec %d: a meta read against data a byte short gave no error", c)
		}
	}
	if got, want := len(encodePacked(lines[:2])), 2+2+1+1+1+(1+1+4)+(1+1+9)+(1+16)*2+1+1+1+6+3+1+1; got > want {
		t.Errorf("two canonical lines packed in %d bytes, want at most %d", got, want)
	}
	for _, l := range []*cairn.Line{lines[8], lines[11]} { // both uuids in the line
		if got, want := len(encodePacked([]*cairn.Line{l})), 2+2+(2+len(l.Type))+(2+2)+(1+2)+(1+2)+1+1; got > want {
			t.Errorf("line %d, holding its uuids, packed in %d bytes, want at most %d", l.No, got, want)
		}
	}
}

// FuzzPackedMeta: lines made from any strings and numbers read back as
// they were, and any bytes read as a packed meta give lines or an error,
// never a panic.
func FuzzPackedMeta(f *testing.F) {
	for _, l := range metaLines() {
		f.Add(l.Type, l.UUID, l.ParentUUID, string(l.Status), l.Timestamp.UnixMilli(), l.RoundSeq, l.Offset, len(l.Raw), []byte(l.UUID))
	}
	f.Fuzz(func(t *testing.T, typ, uuid, parent, status string, ms int64, round int, off int64, size int, junk []byte) {
		size = max(0, size%1000)
		var lines []*cairn.Line
		var data []byte
		for i := range 4 {
			l := &cairn.Line{No: i + 1, Offset: off + int64(i*size), Raw: make([]byte, size), Type: typ, Status: cairn.LineStatus(status), RoundSeq: round + i/2}
			if ms != 0 {
				l.Timestamp = time.UnixMilli(ms + int64(i)).UTC()
			}
			switch i {
			case 0:
				l.UUID, l.ParentUUID = uuid, parent
			case 1:
				l.UUID, l.ParentUUID = parent, uuid
			case 2:
				l.UUID, l.ParentUUID = uuid, parent
				l.Type = status
			case 3:
				l.UUID, l.ParentUUID = typ, ""
			}
			lines = append(lines, l)
			data = append(data, l.Raw...)
		}
		meta := encodePacked(lines)
		back := make([]*cairn.Line, len(lines))
		for i := range back {
			back[i] = &cairn.Line{No: i + 1}
		}
		if err := decodePacked(1, meta, data, back); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(lines, back, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("lines read back differently (-wrote +read):\n%s", diff)
		}
		decodePacked(1, junk, data, back)
	})
}
