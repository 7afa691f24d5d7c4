package http_test

import (
	"context"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mock"
)

func TestRounds(t *testing.T) {
	s, st := MustOpenServer(t)
	all, err := st.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: sessionA})
	if err != nil {
		t.Fatal(err)
	}
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.RoundsResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds", &got)
		if len(got.Rounds) != len(all) || got.Next != -1 {
			t.Fatalf("%d rounds, next %d; want %d, -1", len(got.Rounds), got.Next, len(all))
		}
		r := got.Rounds[len(got.Rounds)-1]
		if r.Index == "" || r.Roles != "user→assistant" || r.Blocks != nil {
			t.Fatalf("last round: index %q, roles %q, %d blocks", r.Index, r.Roles, len(r.Blocks))
		}
	})
	// Each line counts its round's tool calls (main chain), as its blocks do.
	t.Run("ToolCalls", func(t *testing.T) {
		var got cairnhttp.RoundsResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds", &got)
		total := 0
		for _, r := range got.Rounds {
			rd, err := st.Rounds.FindRound(context.Background(), sessionA, r.Seq)
			if err != nil {
				t.Fatal(err)
			}
			want := 0
			for _, b := range rd.Blocks {
				if b.Kind == cairn.ToolUse && !b.Sidechain {
					want++
				}
			}
			if r.ToolCalls != want {
				t.Fatalf("round %d: %d tool calls, its blocks hold %d", r.Seq, r.ToolCalls, want)
			}
			total += want
		}
		if total == 0 {
			t.Fatal("no tool call counted in session A")
		}
		var sess cairnhttp.SessionsResponse
		MustGet(t, s, "/api/sessions?sort=tools", &sess)
		for i, row := range sess.Sessions {
			if row.ID == sessionA && row.ToolCalls != total {
				t.Fatalf("session A lists %d tool calls, its rounds %d", row.ToolCalls, total)
			}
			if i > 0 && sess.Sessions[i-1].ToolCalls < row.ToolCalls {
				t.Fatalf("sort=tools: %d before %d", sess.Sessions[i-1].ToolCalls, row.ToolCalls)
			}
		}
	})
	t.Run("Pages", func(t *testing.T) {
		var seqs []int
		for from := 0; from >= 0; {
			var got cairnhttp.RoundsResponse
			MustGet(t, s, "/api/sessions/"+sessionA+"/rounds?limit=2&from="+strconv.Itoa(from), &got)
			if len(got.Rounds) > 2 {
				t.Fatalf("page of %d rounds, want at most 2", len(got.Rounds))
			}
			for _, r := range got.Rounds {
				seqs = append(seqs, r.Seq)
			}
			from = got.Next
		}
		if len(seqs) != len(all) {
			t.Fatalf("pages held rounds %v; want all %d", seqs, len(all))
		}
		for i, r := range all {
			if seqs[i] != r.Seq {
				t.Fatalf("pages held rounds %v", seqs)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/ffff/rounds", "", 404, "No session")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds?from=-1", "", 400, "want a number")
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds?limit=100000", "", 400, "want a number")
	})
	t.Run("ErrInternal", func(t *testing.T) {
		m := cairnhttp.NewServer()
		m.Sessions = &mock.SessionStore{FindSessionByIDFn: func(_ context.Context, id string) (*cairn.Session, error) {
			return &cairn.Session{ID: id}, nil
		}}
		m.Rounds = &mock.RoundStore{FindRoundsFn: func(context.Context, cairn.RoundFilter) ([]*cairn.Round, error) {
			return nil, errors.New("boom")
		}}
		MustOpen(t, m)
		WantError(t, m, "GET", "/api/sessions/x/rounds", "", 500, "Internal error.")
	})
}

func TestRound(t *testing.T) {
	s, _ := MustOpenServer(t)
	t.Run("OK", func(t *testing.T) {
		var got cairnhttp.RoundResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/1", &got)
		if got.Round.Seq != 1 || len(got.Blocks) == 0 || got.Fidelity != "full" {
			t.Fatalf("round %d with %d blocks at %q", got.Round.Seq, len(got.Blocks), got.Fidelity)
		}
		kinds := map[cairn.BlockKind]bool{}
		for _, b := range got.Blocks {
			kinds[b.Kind] = true
		}
		if !kinds[cairn.UserText] {
			t.Fatalf("round 1 kinds %v: want the user's words", kinds)
		}
	})
	// Round 0 holds what comes before the first prompt, often no block at
	// all: its answer still has the arrays the page maps over.
	t.Run("RoundZero", func(t *testing.T) {
		for _, id := range []string{sessionA, sessionB} {
			var raw map[string]json.RawMessage
			MustGet(t, s, "/api/sessions/"+id+"/rounds/0", &raw)
			for _, k := range []string{"blocks", "steps"} {
				if v := string(raw[k]); v == "" || v == "null" || v[0] != '[' {
					t.Fatalf("session %s round 0: %s is %q, want an array", id, k, v)
				}
			}
		}
	})
	// A round's steps are cairn.Steps of its blocks: every block is in the
	// prompt or one step, in order, and a call's result is in its step.
	t.Run("Steps", func(t *testing.T) {
		var got cairnhttp.RoundResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2", &got)
		if len(got.Steps) == 0 {
			t.Fatal("round 2 has no steps")
		}
		var all []*cairn.Block
		all = append(all, got.PromptBlocks()...)
		calls, results := 0, 0
		for i, st := range got.Steps {
			if st.Seq != i+1 || st.RoundSeq != 2 {
				t.Fatalf("step %d is %d.%d", i, st.RoundSeq, st.Seq)
			}
			if st.BlockFrom != len(all) || st.BlockTo <= st.BlockFrom {
				t.Fatalf("step %d holds blocks %d–%d, want from %d", st.Seq, st.BlockFrom, st.BlockTo, len(all))
			}
			ids := map[string]bool{}
			for _, b := range got.StepBlocks(i) {
				if b.Kind == cairn.ToolUse {
					ids[b.ToolID] = true
					calls++
				}
				if b.Kind == cairn.ToolResult {
					if !ids[b.ToolID] {
						t.Fatalf("step %d: result of %s without its call", st.Seq, b.ToolID)
					}
					results++
				}
			}
			if len(st.Calls) != len(ids) {
				t.Fatalf("step %d: %d calls listed, %d in its blocks", st.Seq, len(st.Calls), len(ids))
			}
			all = append(all, got.StepBlocks(i)...)
		}
		if calls == 0 || results == 0 {
			t.Fatalf("round 2: %d calls, %d results", calls, results)
		}
		if len(all) != len(got.Blocks) {
			t.Fatalf("prompt and steps hold %d blocks, the round %d", len(all), len(got.Blocks))
		}
		for i := range all {
			if all[i].Index != got.Blocks[i].Index {
				t.Fatalf("block %d out of order", i)
			}
		}
		if p := got.PromptBlocks(); len(p) == 0 || p[0].Kind != cairn.UserText {
			t.Fatalf("prompt %v: want the user's words first", p)
		}
	})
	t.Run("Fidelity", func(t *testing.T) {
		var full, text, partial cairnhttp.RoundResponse
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2", &full)
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2?fidelity=text", &text)
		MustGet(t, s, "/api/sessions/"+sessionA+"/rounds/2?fidelity=partial", &partial)
		count := func(r *cairnhttp.RoundResponse, k cairn.BlockKind) (n int) {
			for _, b := range r.Blocks {
				if b.Kind == k {
					n++
				}
			}
			return n
		}
		if count(&full, cairn.ToolUse) == 0 || count(&text, cairn.ToolUse) != 0 || count(&text, cairn.Thinking) != 0 {
			t.Fatalf("tool calls: full %d, text %d", count(&full, cairn.ToolUse), count(&text, cairn.ToolUse))
		}
		if count(&text, cairn.AssistantText) != count(&full, cairn.AssistantText) {
			t.Fatal("text fidelity must keep the assistant's words")
		}
		for _, b := range partial.Blocks {
			if b.Kind == cairn.ToolUse && !strings.HasPrefix(b.Content, "[tool_use:") {
				t.Fatalf("partial tool call %q: want a summary", b.Content)
			}
		}
	})
	t.Run("ErrNotFound", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/999", "", 404, "")
		WantError(t, s, "GET", "/api/sessions/ffff/rounds/1", "", 404, "No session")
	})
	t.Run("ErrInvalid", func(t *testing.T) {
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/x", "", 400, "want a round number")
		WantError(t, s, "GET", "/api/sessions/"+sessionA+"/rounds/1?fidelity=blurry", "", 400, "blurry")
	})
}

// TestRoundBlocksOnce: a round's page carries each block once, its steps
// naming their blocks by index; on the long real session's first round
// the response is its blocks and a quarter more at most (steps' previews), not twice or three times
// them (2.9 MB of blocks were sent as 8.7 MB).
func TestRoundBlocksOnce(t *testing.T) {
	s, st := MustOpenServer(t)
	mustImportLong(t, st)
	code, body := Do(t, s, "GET", "/api/sessions/"+longSession+"/rounds/1", "")
	if code != 200 {
		t.Fatalf("%d %s", code, body)
	}
	var got cairnhttp.RoundResponse
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	blocks, err := json.Marshal(got.Blocks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("round 1: %d blocks, %d steps; blocks %d bytes, response %d bytes (%.2f×)", len(got.Blocks), len(got.Steps), len(blocks), len(body), float64(len(body))/float64(len(blocks)))
	if len(got.Steps) < 50 || len(body) > len(blocks)*5/4 {
		t.Fatalf("%d steps in a response of %d bytes for %d bytes of blocks: want each block once", len(got.Steps), len(body), len(blocks))
	}
	if got.Steps[len(got.Steps)-1].BlockTo != len(got.Blocks) && got.NextBlocks == 0 {
		t.Fatalf("the last step ends at block %d of %d", got.Steps[len(got.Steps)-1].BlockTo, len(got.Blocks))
	}
}
