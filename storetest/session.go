package storetest

import (
	"context"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

func testSession(t *testing.T, open Open) {
	ctx := context.Background()
	t.Run("FindByIDAndPrefix", func(t *testing.T) {
		st := open(t)
		a := newSession("aaaa1111-0000-0000-0000-000000000001", "/p/one", t0, 2, plain)
		b := newSession("aaaa2222-0000-0000-0000-000000000002", "/p/two", t0.Add(time.Hour), 3, plain)
		MustInscribe(t, st, a.in)
		MustInscribe(t, st, b.in)

		got, err := st.Sessions.FindSessionByID(ctx, a.s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if got.ID != a.s.ID || got.Rounds != 2 || got.Project != "/p/one" || got.Lines != 4 {
			t.Fatalf("got %+v", got)
		}
		if want := (cairn.Usage{Input: 20, Output: 10}); got.Usage != want {
			t.Fatalf("usage = %+v, want %+v", got.Usage, want)
		}
		if !got.StartedAt.Equal(t0.Add(time.Minute)) || !got.EndedAt.Equal(t0.Add(2*time.Minute+30*time.Second)) {
			t.Fatalf("times = %v – %v", got.StartedAt, got.EndedAt)
		}
		if got.Title != "question number 1" {
			t.Fatalf("title falls back to the first prompt: got %q", got.Title)
		}
		if got, err := st.Sessions.FindSessionByID(ctx, "aaaa2"); err != nil || got.ID != b.s.ID {
			t.Fatalf("prefix: got %v, %v", got, err)
		}
		_, err = st.Sessions.FindSessionByID(ctx, "aaaa")
		wantCode(t, err, cairn.EINVALID)
		_, err = st.Sessions.FindSessionByID(ctx, "bbbb")
		wantCode(t, err, cairn.ENOTFOUND)
		_, err = st.Sessions.FindSessionByID(ctx, "")
		wantCode(t, err, cairn.EINVALID)
	})

	t.Run("PrefixPrefersMainSession", func(t *testing.T) {
		st := open(t)
		main := newSession("cccc0000-0000-0000-0000-000000000000", "/p", t0, 1, plain)
		sub := newSession("cccc0000-0000-0000-0000-000000000000-agent-a1", "/p", t0, 1, plain)
		sub.s.Lineage, sub.s.Parent, sub.s.AgentID = cairn.LineageSubagent, main.s.ID, "a1"
		MustInscribe(t, st, main.in)
		MustInscribe(t, st, sub.in)
		if got, err := st.Sessions.FindSessionByID(ctx, "cccc"); err != nil || got.ID != main.s.ID {
			t.Fatalf("got %v, %v", got, err)
		}
		if got, err := st.Sessions.FindSessionByID(ctx, sub.s.ID); err != nil || !got.IsSubagent() || got.Parent != main.s.ID {
			t.Fatalf("got %+v, %v", got, err)
		}
	})

	t.Run("Filter", func(t *testing.T) {
		st := open(t)
		for i, p := range []string{"/src/a", "/src/b", "/other"} {
			s := newSession("dddd000"+string(rune('0'+i))+"-0000-0000-0000-000000000000", p, t0.Add(time.Duration(i)*24*time.Hour), 1, plain)
			if i == 1 {
				s.s.Agent = cairn.AgentCodex
			}
			MustInscribe(t, st, s.in)
		}
		sub := newSession("dddd0000-0000-0000-0000-000000000000-agent-x", "/src/a", t0, 1, plain)
		sub.s.Lineage = cairn.LineageSubagent
		MustInscribe(t, st, sub.in)

		for _, c := range []struct {
			name   string
			filter cairn.SessionFilter
			want   []string // id prefixes, newest first
			total  int
		}{
			{"All", cairn.SessionFilter{}, []string{"dddd0002", "dddd0001", "dddd0000"}, 3},
			{"Subagents", cairn.SessionFilter{Subagents: true}, []string{"dddd0002", "dddd0001", "dddd0000", "dddd0000"}, 4},
			{"Project", cairn.SessionFilter{Project: "/src/b"}, []string{"dddd0001"}, 1},
			{"Agent", cairn.SessionFilter{Agent: cairn.AgentCodex}, []string{"dddd0001"}, 1},
			{"AgentClaudeCode", cairn.SessionFilter{Agent: cairn.AgentClaudeCode}, []string{"dddd0002", "dddd0000"}, 2},
			{"ProjectPrefix", cairn.SessionFilter{Project: "/src/"}, []string{"dddd0001", "dddd0000"}, 2},
			{"Since", cairn.SessionFilter{Since: t0.Add(24 * time.Hour)}, []string{"dddd0002", "dddd0001"}, 2},
			{"Until", cairn.SessionFilter{Until: t0.Add(24 * time.Hour)}, []string{"dddd0000"}, 1},
			{"Page", cairn.SessionFilter{Limit: 1, Offset: 1}, []string{"dddd0001"}, 3},
		} {
			t.Run(c.name, func(t *testing.T) {
				got, n, err := st.Sessions.FindSessions(ctx, c.filter)
				if err != nil {
					t.Fatal(err)
				}
				if n != c.total || len(got) != len(c.want) {
					t.Fatalf("got %d sessions of %d, want %d of %d", len(got), n, len(c.want), c.total)
				}
				for i, s := range got {
					if s.ID[:8] != c.want[i] {
						t.Fatalf("session %d = %s, want %s…", i, s.ID, c.want[i])
					}
				}
			})
		}
	})
}
