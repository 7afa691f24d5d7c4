package opencodetest_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// continueMark is the prompt a resumed session is continued with.
const continueMark = "CONTINUE-AFTER-CAIRN"

// TestResumeExport cuts a session the real client wrote with every
// surgical operation, writes each cut into the client's own store, has the
// client continue it (`opencode run --session ID`), and reads the request
// it sends: the summary comes first, the rounds in full are there (their
// answers, each tool call followed by its result under the same id, as
// opencode's own tools), the compressed rounds' calls are not, and the
// request is no larger than the budget the cut was fitted in, the client's
// system prompt and tools counted.
func TestResumeExport(t *testing.T) {
	for _, c := range opencodetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			r := newRig(t, c)
			ctx := context.Background()
			r.home.Run(t, c.Bin, "run", "make the notes file")
			id := r.newest(t)
			r.home.Run(t, c.Bin, "run", "--session", id, "fix the notes")
			r.sync(t, id)
			tags := sqlite.NewTagStore(r.db)
			if err := tags.TagRounds(ctx, id, []int{1}, "files", ""); err != nil {
				t.Fatal(err)
			}
			if err := tags.TagRounds(ctx, id, []int{2}, "fix", ""); err != nil {
				t.Fatal(err)
			}
			st := r.st
			st.Limits = surgery.Limits{Budget: surgery.AutoBudget, Client: cairn.AgentOpencode}
			full := cairn.FullFidelity
			for _, k := range []struct {
				name      string
				run       func() ([]*cairn.Materialization, error)
				kept, not []string // answers and calls the request must hold, and must not
			}{
				{"compress-before-2", func() ([]*cairn.Materialization, error) {
					return one(surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: 2}, full))
				}, []string{"FIXED-NOTES", "call:read", "call:edit"}, []string{"call:write", "call:bash"}},
				{"compress-engagement", func() ([]*cairn.Materialization, error) {
					return one(surgery.CompressEngagement(ctx, st, id, "files", full))
				}, []string{"FIXED-NOTES", "call:edit"}, []string{"call:write"}},
				{"extract-engagement", func() ([]*cairn.Materialization, error) {
					return one(surgery.ExtractEngagement(ctx, st, id, "files", full))
				}, []string{"WROTE-NOTES", "call:write", "call:bash"}, []string{"call:edit"}},
				{"split", func() ([]*cairn.Materialization, error) {
					sm, err := surgery.ParseSplitMap("1=files,2=fix")
					if err != nil {
						return nil, err
					}
					return surgery.Split(ctx, st, id, sm, full)
				}, nil, nil},
				{"merge-with-claude", func() ([]*cairn.Materialization, error) {
					return one(surgery.Merge(ctx, st, id, r.importClaude(t), full))
				}, []string{"FIXED-NOTES", "call:edit", "call:bash"}, []string{"call:Bash"}},
				{"revive", func() ([]*cairn.Materialization, error) {
					return one(surgery.Revive(ctx, st, id, "", "", full))
				}, []string{"FIXED-NOTES", "call:edit"}, nil},
				{"revive-budget", func() ([]*cairn.Materialization, error) {
					st := st
					st.Limits.Budget = cairn.OpencodeRequestOverhead + 2_500
					return one(surgery.Revive(ctx, st, id, "", "", full))
				}, []string{"FIXED-NOTES"}, nil},
			} {
				t.Run(k.name, func(t *testing.T) {
					ms, err := k.run()
					if err != nil {
						t.Fatal(err)
					}
					budget := st.Limits.Budget
					if k.name == "revive-budget" {
						budget = cairn.OpencodeRequestOverhead + 2_500
					}
					for _, m := range ms {
						resumeCase(t, r, m, k.kept, k.not, budget)
					}
				})
			}
		})
	}
}

// resumeCase writes m into the rig's client's store, has the client
// continue it, and checks the request it sends: the API's rules
// (checkRequest), the texts and calls (as "call:NAME") it must hold and
// must not, and its size in tokens against budget (0: none).
func resumeCase(t *testing.T, r *rig, m *cairn.Materialization, kept, not []string, budget int64) {
	t.Helper()
	req, size := r.resume(t, m)
	checkRequest(t, req)
	have := requestText(req)
	for _, s := range kept {
		if !strings.Contains(have, s) {
			t.Errorf("%s: the request lacks %q", m.Label, s)
		}
	}
	for _, s := range not {
		if strings.Contains(have, s) {
			t.Errorf("%s: the request holds %q, which the cut left out", m.Label, s)
		}
	}
	sent := int64(float64(size) / cairn.CharsPerToken)
	if budget > 0 && sent > budget {
		t.Errorf("%s: the client sent %d bytes, ~%d tokens, over the budget %d", m.Label, size, sent, budget)
	}
	t.Logf("%s %s: request %d bytes (~%d tokens), cairn estimated %d tokens", m.Operation, m.Label, size, sent, surgery.Estimate(m))
}

func one(m *cairn.Materialization, err error) ([]*cairn.Materialization, error) {
	if err != nil {
		return nil, err
	}
	return []*cairn.Materialization{m}, nil
}

// resume writes m into the client's store, continues it, and returns the
// request that carried the resumed history and its size in bytes.
func (r *rig) resume(t *testing.T, m *cairn.Materialization) (*fakeapi.ChatRequest, int) {
	t.Helper()
	ctx := context.Background()
	target, err := opencode.ReadTarget(ctx, r.home.DataDir(), r.home.Cwd)
	if err != nil {
		t.Fatal(err)
	}
	x := &opencode.Exporter{Cwd: r.home.Cwd, Summary: surgery.Summary(m), Provider: target.Provider, Model: target.Model,
		Blocks: blocksOf(m)}
	s, err := x.Export(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := opencode.WriteSession(ctx, r.home.DataDir(), target, x, s); err != nil {
		t.Fatal(err)
	}
	before := len(r.api.Requests())
	r.home.Run(t, r.client.Bin, "run", "--session", s.ID, continueMark)
	for _, raw := range r.api.Requests()[before:] {
		var req fakeapi.ChatRequest
		if json.Unmarshal(raw.Body, &req) != nil || len(req.Tools) == 0 {
			continue
		}
		if n := len(req.Messages); n > 0 && strings.Contains(req.Messages[n-1].Text(), continueMark) {
			return &req, len(raw.Body)
		}
	}
	t.Fatalf("no request continued session %s", s.ID)
	return nil, 0
}

// checkRequest checks the rules of the Chat Completions API the request
// must follow: system first, then user text with cairn's summary, every
// assistant tool call answered by a tool message of the same id right
// after it, and no tool message answering nothing.
func checkRequest(t *testing.T, req *fakeapi.ChatRequest) {
	t.Helper()
	msgs := req.Messages
	i := 0
	for i < len(msgs) && msgs[i].Role == "system" {
		i++
	}
	if i == 0 || i >= len(msgs) || msgs[i].Role != "user" || !strings.Contains(msgs[i].Text(), "cairn") {
		t.Fatalf("the request does not open with the system prompt and cairn's summary: %s", roles(msgs))
	}
	for ; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case "assistant":
			for j, c := range m.ToolCalls {
				if i+1+j >= len(msgs) || msgs[i+1+j].Role != "tool" || msgs[i+1+j].ToolCallID != c.ID {
					t.Errorf("message %d: call %s (%s) is not answered right after it: %s", i, c.ID, c.Function.Name, roles(msgs))
				}
			}
		case "tool":
			if i == 0 || msgs[i-1].Role != "assistant" && msgs[i-1].Role != "tool" {
				t.Errorf("message %d: a tool result follows no call: %s", i, roles(msgs))
			}
		}
	}
}

func roles(msgs []fakeapi.ChatMessage) string {
	var out []string
	for _, m := range msgs {
		s := m.Role
		for _, c := range m.ToolCalls {
			s += ":" + c.Function.Name
		}
		out = append(out, s)
	}
	return strings.Join(out, " ")
}

// requestText is the request's conversation as text, each call as
// "call:NAME".
func requestText(req *fakeapi.ChatRequest) string {
	var b strings.Builder
	for _, m := range req.Messages {
		if m.Role == "system" {
			continue
		}
		b.WriteString(m.Text() + "\n")
		for _, c := range m.ToolCalls {
			b.WriteString("call:" + c.Function.Name + " " + c.Function.Arguments + "\n")
		}
	}
	return b.String()
}
