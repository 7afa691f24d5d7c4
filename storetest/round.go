package storetest

import (
	"context"
	"testing"
	"time"

	"cairn"
)

func testRounds(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	s := newSession("acac0000-0000-0000-0000-000000000000", "/p", t0, 4, plain)
	s.in.Rounds[1].Tools = []string{"Read", "Bash"}
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
}
