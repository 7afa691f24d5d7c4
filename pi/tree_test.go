package pi_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// TestOffPath_DamagedLine: a line cut short in the middle of the path
// (its id and parentId whole) still links the entries before it to the
// leaf: nothing is off the path. Read whole, it was no entry, the walk
// from the leaf stopped at it and every line before it was off the path.
func TestOffPath_DamagedLine(t *testing.T) {
	raws := splitLines([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"Hello"}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":[{"type":"text","text":"Hi, cut sh
{"type":"message","id":"a3","parentId":"a2","timestamp":"t","message":{"role":"user","content":"Go on"}}
`))
	if off := pi.OffPath(toLines("s", raws)); len(off) != 0 {
		t.Errorf("off the path: %v, want none", off)
	}
}

// countingLines is a LineStore that counts FindAllLines calls.
type countingLines struct {
	cairn.LineStore
	lines []*cairn.Line
	reads int
}

func (c *countingLines) FindAllLines(context.Context, string) ([]*cairn.Line, error) {
	c.reads++
	return c.lines, nil
}

// TestSessionOffPath_ReadsOnce: asked twice of a session as it is (an
// operation's rounds, then its pieces' lines), SessionOffPath reads its
// lines once; once the session holds more lines, again.
func TestSessionOffPath_ReadsOnce(t *testing.T) {
	lines := &countingLines{lines: toLines("s", splitLines([]byte(doc)))}
	offPath := pi.SessionOffPath(lines)
	s := &cairn.Session{ID: "s", Agent: cairn.AgentPi, Lines: 12, UpdatedAt: time.Unix(1, 0)}
	for range 2 {
		off, err := offPath(context.Background(), s)
		if err != nil || len(off) != 7 {
			t.Fatalf("off the path: %v, %v", off, err)
		}
	}
	if lines.reads != 1 {
		t.Errorf("%d reads of the session's lines, want 1", lines.reads)
	}
	grown := *s
	grown.Lines = 13
	if _, err := offPath(context.Background(), &grown); err != nil || lines.reads != 2 {
		t.Errorf("after the session grew: %d reads, %v; want 2", lines.reads, err)
	}
	if off, _ := offPath(context.Background(), &cairn.Session{ID: "c", Agent: cairn.AgentClaudeCode}); off != nil || lines.reads != 2 {
		t.Errorf("a Claude Code session: %v, %d reads", off, lines.reads)
	}
}

// TestOffPathFrom: walked from an entry in the middle of a branch, the
// entries after it are off the path too (the session as it was when it was
// the last), the entries before it and the header on it; an id no line
// holds is ENOTFOUND.
func TestOffPathFrom(t *testing.T) {
	raws := splitLines([]byte(`{"type":"session","version":3,"id":"s","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":"Hello"}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":"Hi"}}
{"type":"message","id":"b1","parentId":"a1","timestamp":"t","message":{"role":"assistant","content":"Hi again"}}
{"type":"message","id":"b2","parentId":"b1","timestamp":"t","message":{"role":"user","content":"Go on"}}
{"type":"message","id":"b3","parentId":"b2","timestamp":"t","message":{"role":"assistant","content":"Going on"}}
`))
	for _, tc := range []struct {
		leaf string
		off  []int
	}{
		{"", []int{3}},
		{"b2", []int{3, 6}},
		{"b1", []int{3, 5, 6}},
		{"a2", []int{4, 5, 6}},
	} {
		off, err := pi.OffPathFrom(toLines("s", raws), tc.leaf)
		if err != nil {
			t.Fatalf("%q: %v", tc.leaf, err)
		}
		for no := 1; no <= len(raws); no++ {
			if want := slices.Contains(tc.off, no); off[no] != want {
				t.Errorf("from %q: line %d off the path %v, want %v", tc.leaf, no, off[no], want)
			}
		}
	}
	if _, err := pi.OffPathFrom(toLines("s", raws), "zz"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("an id no line holds: %v", err)
	}
}
