package storetest

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

func testInscribe(t *testing.T, open Open) {
	ctx := context.Background()
	t.Run("SourcePosition", func(t *testing.T) {
		st := open(t)
		_, err := st.Inscription.FindSource(ctx, "nope")
		wantCode(t, err, cairn.ENOTFOUND)

		s := newSession("eeee0000-0000-0000-0000-000000000000", "/p", t0, 2, plain)
		state := bytes.Repeat([]byte{5, 6, 0}, 36) // a SHA-256 state's length, zero bytes in it
		s.in.Source.HeadHash, s.in.Source.TailHash, s.in.Source.Sum = []byte{1, 2}, []byte{3, 4}, state
		MustInscribe(t, st, s.in)
		src, err := st.Inscription.FindSource(ctx, s.s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if src.Offset != s.in.Source.Offset || src.Lines != 4 || !bytes.Equal(src.HeadHash, []byte{1, 2}) ||
			!bytes.Equal(src.TailHash, []byte{3, 4}) || !bytes.Equal(src.Sum, state) || src.Path != s.in.Source.Path {
			t.Fatalf("source = %+v", src)
		}
		if byPath, err := st.Inscription.FindSourceByPath(ctx, s.in.Source.Path); err != nil || byPath.SessionID != s.s.ID {
			t.Fatalf("by path: %+v, %v", byPath, err)
		}
		_, err = st.Inscription.FindSourceByPath(ctx, "/elsewhere.jsonl")
		wantCode(t, err, cairn.ENOTFOUND)
		last, err := st.Inscription.LastRound(ctx, s.s.ID)
		if err != nil || last.Seq != 2 || last.FirstLine != 3 {
			t.Fatalf("last round = %+v, %v", last, err)
		}
	})

	t.Run("AppendReplacesOpenRound", func(t *testing.T) {
		st := open(t)
		full := newSession("eeee1111-0000-0000-0000-000000000000", "/p", t0, 3, plain)
		// First batch: rounds 1–2 and the first line of round 3 (so round 3 is open).
		first := *full.in
		first.Lines = full.in.Lines[:5]
		first.Rounds = full.in.Rounds[:3]
		first.Blocks = full.in.Blocks[:7]
		first.Messages = full.in.Messages[:2]
		first.Source.Lines = 5
		MustInscribe(t, st, &first)
		// Second batch: the rest, with round 3 rebuilt.
		second := *full.in
		second.Lines = full.in.Lines[5:]
		second.FromSeq = 3
		second.Rounds = full.in.Rounds[2:]
		second.Blocks = full.in.Blocks[6:]
		second.Messages = full.in.Messages[2:]
		MustInscribe(t, st, &second)

		r, err := st.Rounds.FindRound(ctx, full.s.ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Blocks) != 3 {
			t.Fatalf("round 3 has %d blocks, want 3 (no duplicates)", len(r.Blocks))
		}
		sess, _ := st.Sessions.FindSessionByID(ctx, full.s.ID)
		if sess.Rounds != 3 || sess.Usage.Input != 30 || sess.Lines != 6 {
			t.Fatalf("session = %+v", sess)
		}
	})

	t.Run("MessageUsageCountedOnce", func(t *testing.T) {
		st := open(t)
		s := newSession("eeee2222-0000-0000-0000-000000000000", "/p", t0, 1, plain)
		s.in.Messages = append(s.in.Messages, &cairn.MessageUsage{MessageID: "m1", RoundSeq: 1, Usage: cairn.Usage{Input: 10, Output: 7}})
		MustInscribe(t, st, s.in)
		sess, _ := st.Sessions.FindSessionByID(ctx, s.s.ID)
		if sess.Usage.Output != 7 || sess.Usage.Input != 10 {
			t.Fatalf("usage = %+v, want the last report of message m1 once", sess.Usage)
		}
	})

	t.Run("ResetStartsGeneration", func(t *testing.T) {
		st := open(t)
		s := newSession("eeee3333-0000-0000-0000-000000000000", "/p", t0, 3, plain)
		MustInscribe(t, st, s.in)
		again := newSession(s.s.ID, "/p", t0, 1, func(int) (string, string) { return "rewritten prompt", "rewritten answer" })
		again.in.Reset, again.in.Source.Generation = true, 1
		MustInscribe(t, st, again.in)
		lines, err := st.Lines.FindLines(ctx, s.s.ID, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(lines) != 2 || !bytes.Contains(lines[0].Raw, []byte("rewritten prompt")) {
			t.Fatalf("lines after reset = %d", len(lines))
		}
		sess, _ := st.Sessions.FindSessionByID(ctx, s.s.ID)
		if sess.Rounds != 1 {
			t.Fatalf("rounds after reset = %d, want 1", sess.Rounds)
		}
		hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "question"})
		if err != nil || len(hits) != 0 {
			t.Fatalf("old generation still searchable: %v %v", hits, err)
		}
	})

	t.Run("SubagentLinkedToSpawningRound", func(t *testing.T) {
		for _, order := range []string{"ParentFirst", "ChildFirst"} {
			t.Run(order, func(t *testing.T) {
				st := open(t)
				parent := newSession("ffff0000-0000-0000-0000-000000000000", "/p", t0, 3, plain)
				parent.in.Blocks = append(parent.in.Blocks, &cairn.Block{SessionID: parent.s.ID, RoundSeq: 2, LineNo: 4, Index: 3,
					Role: "user", Kind: cairn.ToolResult, Content: "done", ToolName: "Task", ToolID: "toolu_1", AgentID: "a9"})
				child := newSession(parent.s.ID+"-agent-a9", "/p", t0, 1, plain)
				child.s.Lineage, child.s.Parent, child.s.AgentID = cairn.LineageSubagent, parent.s.ID, "a9"
				ins := []*cairn.Inscription{parent.in, child.in}
				if order == "ChildFirst" {
					ins[0], ins[1] = ins[1], ins[0]
				}
				MustInscribe(t, st, ins[0])
				MustInscribe(t, st, ins[1])
				got, err := st.Sessions.FindSessionByID(ctx, child.s.ID)
				if err != nil || got.ParentRound != 2 || got.Parent != parent.s.ID {
					t.Fatalf("child = %+v, %v; want parent round 2", got, err)
				}
			})
		}
	})

	t.Run("ErrInvalidSession", func(t *testing.T) {
		st := open(t)
		err := st.Inscription.Inscribe(ctx, &cairn.Inscription{Session: &cairn.Session{}})
		wantCode(t, err, cairn.EINVALID)
	})
}

func testLines(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("abab0000-0000-0000-0000-000000000000", "/p", t0, 3, plain)
	s.in.Lines[2].Raw = []byte("not json, \xff bytes kept\r\n")
	s.in.Lines[2].Status = cairn.LineInvalidJSON
	MustInscribe(t, st, s.in)

	all, err := st.Lines.FindLines(ctx, s.s.ID, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 6 {
		t.Fatalf("got %d lines", len(all))
	}
	for i, l := range all {
		want := s.in.Lines[i]
		if l.No != i+1 || !bytes.Equal(l.Raw, want.Raw) || l.Offset != want.Offset || l.Status != want.Status ||
			l.RoundSeq != want.RoundSeq || !l.Timestamp.Equal(want.Timestamp) || l.UUID != want.UUID {
			t.Fatalf("line %d = %+v, want %+v", i+1, l, want)
		}
	}
	part, err := st.Lines.FindLines(ctx, s.s.ID, 2, 4)
	if err != nil || len(part) != 3 || part[0].No != 2 {
		t.Fatalf("lines 2–4: %d, %v", len(part), err)
	}
	_, err = st.Lines.FindLines(ctx, "nope", 0, 0)
	wantCode(t, err, cairn.ENOTFOUND)
}

func testAllLines(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("afaf0000-0000-0000-0000-000000000000", "/p", t0, 2, plain)
	MustInscribe(t, st, s.in)
	again := newSession(s.s.ID, "/p", t0, 1, func(int) (string, string) { return "rewritten prompt", "rewritten answer" })
	again.in.Reset, again.in.Source.Generation = true, 1
	MustInscribe(t, st, again.in)

	all, err := st.Lines.FindAllLines(ctx, s.s.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]*cairn.Line(nil), s.in.Lines...), again.in.Lines...)
	if len(all) != len(want) {
		t.Fatalf("got %d lines of all generations, want %d", len(all), len(want))
	}
	for i, l := range all {
		gen := 0
		if i >= len(s.in.Lines) {
			gen = 1
		}
		if l.Generation != gen || l.No != want[i].No || !bytes.Equal(l.Raw, want[i].Raw) {
			t.Fatalf("line %d = generation %d no %d %q, want generation %d no %d %q", i, l.Generation, l.No, l.Raw, gen, want[i].No, want[i].Raw)
		}
	}
	current, _ := st.Lines.FindLines(ctx, s.s.ID, 0, 0)
	if len(current) != 2 || current[0].Generation != 1 {
		t.Fatalf("current generation: %d lines, generation %d", len(current), current[0].Generation)
	}
	_, err = st.Lines.FindAllLines(ctx, "nope")
	wantCode(t, err, cairn.ENOTFOUND)
}

// testHostileContent stores what transcripts may hold and SQL text columns
// may not: every byte value in a raw line, NUL and invalid UTF-8 in parsed
// text, and a searchable block far larger than a search vector may be.
func testHostileContent(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("a0a00000-0000-0000-0000-000000000000", "/p", t0, 2, plain)
	raw := make([]byte, 0, 258)
	for b := 0; b < 256; b++ {
		raw = append(raw, byte(b))
	}
	raw = append(raw, '\r', '\n')
	s.in.Lines[0].Raw, s.in.Lines[0].Status = raw, cairn.LineInvalidUTF8
	s.in.Blocks[0].Content = "nul\x00byte and \xff\xfe invalid utf-8"
	s.in.Rounds[0].UserPreview, s.in.Rounds[0].Tools = "nul\x00 preview \xff", []string{"To\x00l"}
	var big strings.Builder
	big.WriteString("needle ")
	for i := 0; big.Len() < 3<<20; i++ {
		fmt.Fprintf(&big, "w%x ", i)
	}
	s.in.Blocks[2].Content = big.String()
	MustInscribe(t, st, s.in)

	lines, err := st.Lines.FindLines(ctx, s.s.ID, 1, 1)
	if err != nil || len(lines) != 1 || !bytes.Equal(lines[0].Raw, raw) {
		t.Fatalf("raw bytes did not round-trip: %v", err)
	}
	if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "needle"}); err != nil || len(hits) != 1 {
		t.Fatalf("the start of a 3 MB block is not searchable: %+v, %v", hits, err)
	}
	if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "nul"}); err != nil || len(hits) != 1 {
		t.Fatalf("text with NUL and invalid UTF-8: %+v, %v", hits, err)
	}
	r, err := st.Rounds.FindRound(ctx, s.s.ID, 1)
	if err != nil || len(r.Blocks[2].Content) < 3<<20 {
		t.Fatalf("the big block is not kept whole: %v", err)
	}
}
