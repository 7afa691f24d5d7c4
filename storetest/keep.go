package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// testKeep checks what a store says it holds, its keep setting, and that
// dropping a session removes everything inscribed of it and nothing of
// another, and is remembered until the session is inscribed again.
func testKeep(t *testing.T, open Open) {
	ctx := context.Background()
	st := open(t)
	stats := func(t *testing.T) *cairn.StoreStats {
		t.Helper()
		s, err := st.Stats.Stats(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if s := stats(t); s.Sessions != 0 || s.Rounds != 0 || s.Blocks != 0 || s.Lines != 0 || !s.Oldest.IsZero() || s.Bytes <= 0 {
		t.Fatalf("empty store: %+v", s)
	}
	a := newSession("7b0a0000-0000-0000-0000-000000000000", "/p", t0, 5, plain)
	b := newSession("7b0b0000-0000-0000-0000-000000000000", "/q", t0.Add(48*time.Hour), 3, func(i int) (string, string) {
		return "different words", "another reply"
	})
	MustInscribe(t, st, a.in)
	MustInscribe(t, st, b.in)
	if err := st.Tags.TagRounds(ctx, a.s.ID, []int{1, 2}, "doomed", ""); err != nil {
		t.Fatal(err)
	}
	s := stats(t)
	if s.Sessions != 2 || s.ByAgent[cairn.AgentClaudeCode] != 2 || s.Rounds != 8 || s.Blocks != 24 || s.Lines != 16 {
		t.Errorf("stats of 2 sessions, 8 rounds, 24 blocks, 16 lines: %+v", s)
	}
	if len(s.Parts) == 0 || s.Parts[0].Bytes <= 0 {
		t.Errorf("no parts: %+v", s.Parts)
	}
	if want := a.in.Source.Offset + b.in.Source.Offset; s.RawBytes != want {
		t.Errorf("raw bytes %d, want %d", s.RawBytes, want)
	}
	if !s.Oldest.Equal(a.in.Rounds[0].StartedAt) && !s.Oldest.Before(s.Newest) {
		t.Errorf("oldest %v, newest %v", s.Oldest, s.Newest)
	}

	t.Run("Setting", func(t *testing.T) {
		for _, days := range []int{30, 7, 0} {
			if err := st.Keep.SetKeepDays(ctx, days); err != nil {
				t.Fatal(err)
			}
			if got, err := st.Keep.KeepDays(ctx); err != nil || got != days {
				t.Fatalf("KeepDays = %d, %v; want %d", got, err, days)
			}
			if got := stats(t).KeepDays; got != days {
				t.Fatalf("Stats().KeepDays = %d, want %d", got, days)
			}
		}
		wantCode(t, st.Keep.SetKeepDays(ctx, -1), cairn.EINVALID)
	})

	t.Run("Drop", func(t *testing.T) {
		at := t0.Add(90 * 24 * time.Hour)
		if err := st.Keep.DropSessions(ctx, []string{a.s.ID, "no-such-session"}, at); err != nil {
			t.Fatal(err)
		}
		_, err := st.Sessions.FindSessionByID(ctx, a.s.ID)
		wantCode(t, err, cairn.ENOTFOUND)
		if rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: a.s.ID}); err != nil || len(rounds) != 0 {
			t.Errorf("rounds of a dropped session: %d, %v", len(rounds), err)
		}
		if n, err := st.Rounds.CountRounds(ctx, cairn.RoundFilter{EngagementID: "doomed"}); err != nil || n != 0 {
			t.Errorf("tagged rounds of a dropped session counted: %d, %v", n, err)
		}
		if _, err := st.Lines.FindAllLines(ctx, a.s.ID); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("lines of a dropped session: %v", err)
		}
		if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "question"}); err != nil || len(hits) != 0 {
			t.Errorf("search finds a dropped session: %d hits, %v", len(hits), err)
		}
		if hits, err := st.Searcher.Search(ctx, cairn.SearchQuery{Text: "different"}); err != nil || len(hits) == 0 {
			t.Errorf("search lost the kept session: %d hits, %v", len(hits), err)
		}
		if lines, err := st.Lines.FindAllLines(ctx, b.s.ID); err != nil || len(lines) != 6 {
			t.Errorf("kept session's lines: %d, %v", len(lines), err)
		}
		if got, err := st.Keep.Dropped(ctx, a.s.ID); err != nil || !got.Equal(at) {
			t.Errorf("Dropped = %v, %v; want %v", got, err, at)
		}
		_, err = st.Keep.Dropped(ctx, b.s.ID)
		wantCode(t, err, cairn.ENOTFOUND)
		if s := stats(t); s.Sessions != 1 || s.Rounds != 3 || s.Blocks != 9 || s.Lines != 6 || s.Dropped != 1 {
			t.Errorf("stats after the drop: %+v", s)
		}

		// Inscribed again (the file went on after the drop): no longer dropped.
		again := newSession(a.s.ID, "/p", t0, 2, plain)
		MustInscribe(t, st, again.in)
		_, err = st.Keep.Dropped(ctx, a.s.ID)
		wantCode(t, err, cairn.ENOTFOUND)
		if s := stats(t); s.Sessions != 2 || s.Dropped != 0 {
			t.Errorf("stats after inscribing again: %+v", s)
		}
	})
}
