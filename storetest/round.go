package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func testRounds(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("acac0000-0000-0000-0000-000000000000", "/p", t0, 4, plain)
	s.in.Rounds[1].Tools = []string{"Read", "Bash"}
	// Round 3 calls three tools on its main chain, round 4 one more on a
	// sidechain (an inlined subagent's), which is not the round's.
	for i, b := range []struct {
		seq       int
		sidechain bool
	}{{3, false}, {3, false}, {3, false}, {4, true}} {
		s.in.Blocks = append(s.in.Blocks, &cairn.Block{SessionID: s.s.ID, RoundSeq: b.seq, LineNo: 2 * b.seq, Index: 3 + i, Role: "assistant",
			Kind: cairn.ToolUse, Content: "{}", ToolName: "Bash", ToolID: fmt.Sprintf("t%d", i), Sidechain: b.sidechain})
	}
	MustInscribe(t, st, s.in)

	t.Run("FindRound", func(t *testing.T) {
		r, err := st.Rounds.FindRound(ctx, s.s.ID, 2)
		if err != nil {
			t.Fatal(err)
		}
		if r.UserPreview != "question number 2" || r.AgentPreview != "answer number 2" || len(r.Tools) != 2 || r.Tools[1] != "Bash" {
			t.Fatalf("round = %+v", r)
		}
		if len(r.Blocks) != 3 || r.Blocks[0].Kind != cairn.UserText || r.Blocks[2].Content != "answer number 2" {
			t.Fatalf("blocks = %+v", r.Blocks)
		}
		if r.Usage.Input != 10 {
			t.Fatalf("usage = %+v", r.Usage)
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := st.Rounds.FindRound(ctx, s.s.ID, 99)
		wantCode(t, err, cairn.ENOTFOUND)
		_, _, err = st.Rounds.FindRoundPage(ctx, s.s.ID, 99, cairn.BlockPage{Limit: 10, Bytes: 100})
		wantCode(t, err, cairn.ENOTFOUND)
	})
	// Round 3's six blocks: its prompt, thinking, answer and three calls.
	t.Run("FindRoundPage", func(t *testing.T) {
		whole, err := st.Rounds.FindRound(ctx, s.s.ID, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			name string
			page cairn.BlockPage
			want []string
			size int // of the first block, when cut
		}{
			{"First", cairn.BlockPage{Limit: 2, Bytes: 1 << 20}, []string{"question number 3", "secret musing answer number 3"}, 0},
			{"Last", cairn.BlockPage{From: 4, Limit: 10, Bytes: 1 << 20}, []string{"{}", "{}"}, 0},
			{"Beyond", cairn.BlockPage{From: 6, Limit: 10, Bytes: 1 << 20}, []string{}, 0},
			{"Bytes", cairn.BlockPage{Limit: 10, Bytes: 20}, []string{"question number 3"}, 0},
			{"Cut", cairn.BlockPage{From: 1, Limit: 10, Bytes: 6}, []string{"secret"}, 29},
		} {
			t.Run(c.name, func(t *testing.T) {
				r, total, err := st.Rounds.FindRoundPage(ctx, s.s.ID, 3, c.page)
				if err != nil {
					t.Fatal(err)
				}
				if total != 6 || r.Seq != 3 || r.UserPreview != whole.UserPreview || len(r.Blocks) != len(c.want) {
					t.Fatalf("round %d of %d blocks, page of %d, want %d", r.Seq, total, len(r.Blocks), len(c.want))
				}
				for i, b := range r.Blocks {
					w := *whole.Blocks[c.page.From+i]
					w.Content, w.Size = c.want[i], 0
					if i == 0 {
						w.Size = c.size
					}
					if got := *b; got.Content != w.Content || got.Size != w.Size || got.LineNo != w.LineNo || got.Index != w.Index ||
						got.Kind != w.Kind || got.ToolID != w.ToolID || !got.Timestamp.Equal(w.Timestamp) {
						t.Fatalf("block %d = %+v, want %+v", c.page.From+i, got, w)
					}
				}
			})
		}
	})
	t.Run("FindRounds", func(t *testing.T) {
		for _, c := range []struct {
			name   string
			filter cairn.RoundFilter
			want   []int
		}{
			{"All", cairn.RoundFilter{SessionID: s.s.ID}, []int{1, 2, 3, 4}},
			{"Range", cairn.RoundFilter{SessionID: s.s.ID, FromSeq: 2, ToSeq: 3}, []int{2, 3}},
			{"Since", cairn.RoundFilter{SessionID: s.s.ID, Since: t0.Add(3 * time.Minute)}, []int{3, 4}},
			{"Until", cairn.RoundFilter{SessionID: s.s.ID, Until: t0.Add(2 * time.Minute)}, []int{1}},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, err := st.Rounds.FindRounds(ctx, c.filter)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(c.want) {
					t.Fatalf("got %d rounds, want %v", len(got), c.want)
				}
				for i, r := range got {
					if r.Seq != c.want[i] || r.Blocks != nil {
						t.Fatalf("round %d = %d (blocks %d), want %d without blocks", i, r.Seq, len(r.Blocks), c.want[i])
					}
				}
			})
		}
	})
	t.Run("ToolCalls", func(t *testing.T) {
		got, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.s.ID, ToolCalls: true})
		if err != nil {
			t.Fatal(err)
		}
		calls := make([]int, len(got))
		for i, r := range got {
			calls[i] = r.ToolCalls
		}
		if !slices.Equal(calls, []int{0, 0, 3, 0}) {
			t.Fatalf("tool calls per round %v, want [0 0 3 0]: main chain only", calls)
		}
		// Not asked, not counted: a lookup stays cheap.
		if got, err = st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.s.ID, FromSeq: 3, ToSeq: 3}); err != nil || got[0].ToolCalls != 0 {
			t.Fatalf("without ToolCalls: %v, %v", got, err)
		}
		sessions, _, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{ToolCalls: true})
		if err != nil || len(sessions) != 1 || sessions[0].ToolCalls != 3 {
			t.Fatalf("session tool calls: %v, %v; want 3", sessions, err)
		}
	})
}
