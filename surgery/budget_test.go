package surgery_test

import (
	"bufio"
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/surgery"
)

// shared is where the real transcripts are (never copied into the repo).
const shared = "../../shared/testdata/transcripts"

// The long, auto-compacted autonomous sessions of spotter.
var longSessions = []string{"258c7280-ae70-4798-800f-63464d01a85d", "8463c716-a2ea-4c14-9efa-87158ebd9f20"}

func mustOpenShared(tb testing.TB) *store {
	tb.Helper()
	if _, err := os.Stat(shared); err != nil {
		tb.Skipf("no shared transcripts at %s", shared)
	}
	st := mustOpenSamples(tb)
	var paths []string
	for _, id := range longSessions {
		paths = append(paths, filepath.Join(shared, "marot__spotter/long", id+".jsonl"))
	}
	for _, f := range []string{"marot__spotter/tool_heavy.jsonl", "marot__spotter/short.jsonl", "marot__spotter/subagent.jsonl",
		"d-kimuson__claude-code-viewer", "oneryalcin__fasthooks"} {
		paths = append(paths, filepath.Join(shared, f))
	}
	mustImport(tb, st, paths...)
	return st
}

// lastRequest returns the context the last main-chain request of a
// transcript carried (its usage) and that reply's message id.
func lastRequest(tb testing.TB, path string) (int64, string, string, int64) {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var ctxTokens, first int64
	var id, session string
	for sc.Scan() {
		var l struct {
			SessionID   string `json:"sessionId"`
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				ID    string `json:"id"`
				Usage *struct {
					Input         int64 `json:"input_tokens"`
					CacheRead     int64 `json:"cache_read_input_tokens"`
					CacheCreation int64 `json:"cache_creation_input_tokens"`
				} `json:"usage"`
			} `json:"message"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && session == "" {
			session = l.SessionID
		}
		if l.Type != "assistant" || l.IsSidechain || l.Message.Usage == nil {
			continue
		}
		u := l.Message.Usage
		ctxTokens, id = u.Input+u.CacheRead+u.CacheCreation, l.Message.ID
		if first == 0 {
			first = ctxTokens
		}
	}
	return ctxTokens, id, session, first
}

// TestEstimateCalibration compares the estimate of what the client loads
// (surgery.Resume: everything after the last compaction) with the usage the
// client recorded for its last request, on every real transcript, and
// prints the error. The reply itself is not part of its request.
func TestEstimateCalibration(t *testing.T) {
	st := mustOpenShared(t)
	ctx := context.Background()
	var files []string
	for _, id := range longSessions {
		files = append(files, filepath.Join(shared, "marot__spotter/long", id+".jsonl"))
	}
	for _, f := range []string{"marot__spotter/tool_heavy.jsonl", "marot__spotter/short.jsonl", "marot__spotter/subagent.jsonl",
		"d-kimuson__claude-code-viewer/1af7fc5e-8455-4414-9ccd-011d40f70b2a.jsonl", "d-kimuson__claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl",
		"oneryalcin__fasthooks/sample_main_transcript.jsonl"} {
		files = append(files, filepath.Join(shared, f))
	}
	var sumAbs float64
	n := 0
	for _, path := range files {
		actual, msgID, id, first := lastRequest(t, path)
		if actual == 0 {
			continue
		}
		m, err := surgery.Resume(ctx, st.Store, id)
		if err != nil {
			t.Fatal(err)
		}
		// The estimate assumes today's client's overhead; the recording
		// client's is its first request (less its short first prompt).
		est := surgery.Estimate(m) - m.Overhead + first
		last := m.Pieces[len(m.Pieces)-1]
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, FromSeq: last.Round.Seq, ToSeq: last.Round.Seq, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range rounds[0].Blocks {
			if b.MessageID == msgID {
				est -= cairn.BlockTokens(b)
			}
		}
		e := float64(est-actual) / float64(actual)
		sumAbs += math.Abs(e)
		n++
		t.Logf("%-40s %s: client recorded %7d tokens, estimate %7d (%+.1f%%)", filepath.Base(path), short(id), actual, est, 100*e)
		if math.Abs(e) > 0.25 {
			t.Errorf("%s: estimate %d is %+.0f%% off the %d tokens the client recorded", path, est, 100*e, actual)
		}
	}
	if n == 0 {
		t.Fatal("no transcript records usage")
	}
	t.Logf("calibration: mean absolute error %.1f%% over %d transcripts", 100*sumAbs/float64(n), n)
}

func short(id string) string { return id[:8] }

// TestBudgetLongSessions: on the long auto-compacted sessions, revive and
// compress-before at the middle round fit the default budget, are smaller
// than what the client loads for the original, keep the latest prompt and
// the last answer, bring nothing back from before the compaction, and
// refuse a budget too small for even the latest prompt and answer.
func TestBudgetLongSessions(t *testing.T) {
	st := mustOpenShared(t)
	ctx := context.Background()
	for _, id := range longSessions {
		t.Run(short(id), func(t *testing.T) {
			orig, err := surgery.Resume(ctx, st.Store, id)
			if err != nil {
				t.Fatal(err)
			}
			original := surgery.Estimate(orig)
			if len(orig.Compactions) == 0 {
				t.Fatalf("no compaction found in %s", id)
			}
			c := orig.Compactions[len(orig.Compactions)-1]
			all, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id, FromSeq: 1, WithBlocks: true})
			if err != nil {
				t.Fatal(err)
			}
			lastRound := all[len(all)-1]
			var prompt, answer string
			for _, b := range lastRound.Blocks {
				switch {
				case b.Kind == cairn.UserText && prompt == "":
					prompt = b.Content
				case b.Kind == cairn.AssistantText && !b.Sidechain:
					answer = b.Content
				}
			}
			mid := all[len(all)/2].Seq
			for _, budget := range []int64{surgery.AutoBudget, 80_000, 65_000} {
				st := st.Store
				st.Limits = surgery.Limits{Budget: budget}
				for _, op := range []string{"revive", "compress-before"} {
					var m *cairn.Materialization
					if op == "revive" {
						m, err = surgery.Revive(ctx, st, id, "", "", cairn.FullFidelity)
					} else {
						m, err = surgery.CompressBefore(ctx, st, id, surgery.Point{Seq: mid}, cairn.FullFidelity)
					}
					if err != nil {
						t.Fatalf("%s --budget %d: %v", op, budget, err)
					}
					est := surgery.Estimate(m)
					if m.Budget <= 0 || est > m.Budget {
						t.Errorf("%s --budget %d: estimate %d over the budget %d", op, budget, est, m.Budget)
					}
					if est >= original {
						t.Errorf("%s --budget %d: estimate %d not smaller than the original's %d", op, budget, est, original)
					}
					x := &claudecode.Exporter{SessionID: "00000000-0000-4000-8000-000000000000", Summary: surgery.Summary(m)}
					lines, err := x.Lines(m)
					if err != nil {
						t.Fatal(err)
					}
					body := string(join(lines))
					if !strings.Contains(body, jsonText(prompt)) {
						t.Errorf("%s --budget %d: the latest prompt is not in the output", op, budget)
					}
					if !strings.Contains(body, jsonText(answer)) {
						t.Errorf("%s --budget %d: the last answer is not in the output", op, budget)
					}
					if !strings.Contains(body, jsonText(c.Summary[:200])) {
						t.Errorf("%s --budget %d: the client's compaction summary is not carried", op, budget)
					}
					// Nothing from before the boundary comes back: no line kept
					// lies before it, except the round's prompt.
					for _, p := range m.FullPieces() {
						for _, l := range p.Lines {
							if l.No < c.Line && l.No > p.Round.FirstLine && l.Type == "assistant" {
								t.Errorf("%s --budget %d: line %d (before the boundary at %d) is back", op, budget, l.No, c.Line)
								break
							}
						}
					}
					t.Logf("%s --budget %-7d: %6d tokens (original %6d, budget %6d) · %d lines · %d step index lines",
						op, budget, est, original, m.Budget, len(lines), stepLines(m))
				}
			}
			st := st.Store
			st.Limits = surgery.Limits{Budget: 1000}
			if _, err := surgery.Revive(ctx, st, id, "", "", cairn.FullFidelity); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "Does not fit in 1000 tokens") {
				t.Errorf("revive --budget 1000: got %v, want a refusal with the figures", err)
			}
		})
	}
}

func stepLines(m *cairn.Materialization) int {
	n := 0
	for _, p := range m.Pieces {
		n += len(p.Index)
	}
	return n
}

func join(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(b, l...)
	}
	return b
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// TestAdviseLongSessions: advise's figure is what the client loads (the
// same estimate as Resume), and what it recommends shrinks it: running the
// advised command gives the estimate advise announced, below the original.
func TestAdviseLongSessions(t *testing.T) {
	st := mustOpenShared(t)
	ctx := context.Background()
	for _, id := range longSessions {
		orig, err := surgery.Resume(ctx, st.Store, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, window := range []int64{0, 150_000, 120_000} {
			a, err := surgery.Advise(ctx, st.Store, id, window)
			if err != nil {
				t.Fatal(err)
			}
			if a.ContextTokens != surgery.Estimate(orig) {
				t.Errorf("%s window %d: advise says %d tokens, Resume's estimate is %d", short(id), window, a.ContextTokens, surgery.Estimate(orig))
			}
			t.Logf("%s window %d: loads %d → %s (%d)", short(id), a.Window, a.ContextTokens, a.Command, a.KeptTokens)
			if a.ContextTokens < a.CompactAt/2 { // half the way to where the client compacts
				if a.Operation != "" {
					t.Errorf("%s window %d: under half the way to compaction, advised %s", short(id), window, a.Command)
				}
				continue
			}
			if a.Operation == "" || a.KeptTokens <= 0 || a.KeptTokens >= a.ContextTokens {
				t.Errorf("%s window %d: advised %q keeping %d of %d tokens", short(id), window, a.Command, a.KeptTokens, a.ContextTokens)
				continue
			}
			run := st.Store
			run.Limits = surgery.Limits{Budget: a.Window / 2}
			var m *cairn.Materialization
			switch a.Operation {
			case cairn.OpRevive:
				m, err = surgery.Revive(ctx, run, id, "", "", cairn.FullFidelity)
			case cairn.OpCompressBefore:
				p, _ := surgery.ParsePoint(a.Args[len(a.Args)-1])
				m, err = surgery.CompressBefore(ctx, run, id, p, cairn.FullFidelity)
			default:
				t.Fatalf("unexpected advice %s", a.Command)
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := surgery.Estimate(m); got != a.KeptTokens {
				t.Errorf("%s window %d: %s gives %d tokens, advise said %d", short(id), window, a.Command, got, a.KeptTokens)
			}
		}
	}
}

// TestBudgetForCodex: an output Codex resumes counts Codex's overhead, not
// Claude Code's: a budget under Claude Code's overhead fits, leaves the
// conversation what the client does not take, and what Codex would load for
// the session as it is compares with it.
func TestBudgetForCodex(t *testing.T) {
	st := mustOpenSamples(t)
	const long = "7a11c0de-0000-4000-8000-000000000150" // one long round, auto-compacted
	mustImport(t, st, "../testdata/long/"+long+".jsonl")
	ctx := context.Background()
	claude := st.Store
	claude.Limits = surgery.Limits{Budget: 30_000}
	if _, err := surgery.Revive(ctx, claude, long, "", "", cairn.FullFidelity); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("revive --budget 30000 for Claude Code: got %v, want a refusal (its own overhead is %d)", err, cairn.DefaultRequestOverhead)
	}
	codex := st.Store
	codex.Limits = surgery.Limits{Budget: 30_000, Client: cairn.AgentCodex}
	for _, op := range []string{"revive", "compress-before"} {
		var m *cairn.Materialization
		var err error
		if op == "revive" {
			m, err = surgery.Revive(ctx, codex, long, "", "", cairn.FullFidelity)
		} else {
			m, err = surgery.CompressBefore(ctx, codex, long, surgery.Point{Seq: 1}, cairn.FullFidelity)
		}
		if err != nil {
			t.Fatalf("%s --budget 30000 for Codex: %v", op, err)
		}
		if m.Overhead != cairn.CodexRequestOverhead {
			t.Errorf("%s: overhead %d, want Codex's %d", op, m.Overhead, cairn.CodexRequestOverhead)
		}
		if est := surgery.Estimate(m); est > m.Budget || m.Budget > 30_000 {
			t.Errorf("%s: estimate %d, budget %d: want within 30000", op, est, m.Budget)
		}
	}
	orig, err := surgery.Resume(ctx, codex, long)
	if err != nil {
		t.Fatal(err)
	}
	if orig.Overhead != cairn.CodexRequestOverhead {
		t.Errorf("resume for Codex: overhead %d, want Codex's %d", orig.Overhead, cairn.CodexRequestOverhead)
	}
}
