package codex_test

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/codex"
)

var update = flag.Bool("update", false, "rewrite golden files")

// samples are rollouts the real client wrote (../testdata/codex) and
// hand-made ones of eras and cases the offline client does not produce
// (testdata/*.jsonl): first-era files, compacted lines, sub-agent threads.
func samples(tb testing.TB) []string {
	tb.Helper()
	real, _ := filepath.Glob("../testdata/codex/*.jsonl")
	made, _ := filepath.Glob("testdata/*.jsonl")
	if len(real) == 0 || len(made) == 0 {
		tb.Fatal("no samples")
	}
	return append(real, made...)
}

// build parses a whole file in one pass.
func build(tb testing.TB, path string) (*cairn.Session, []*cairn.Line, []*cairn.Round, []*cairn.Block, []*cairn.MessageUsage) {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	raws := codex.SplitLines(data)
	s, err := codex.Format{}.Identify(path, raws)
	if err != nil {
		tb.Fatal(err)
	}
	b := codex.Format{}.NewBuilder(s, 0)
	var lines []*cairn.Line
	for i, raw := range raws {
		l := &cairn.Line{SessionID: s.ID, No: i + 1, Raw: raw}
		if p := b.Add(l); p != "" {
			l.Type += " (" + p + ")"
		}
		lines = append(lines, l)
	}
	rounds, blocks, msgs := b.Finish()
	return s, lines, rounds, cairn.CollectBlocks(blocks), msgs
}

// render is what a golden file pins: the session, each round with its
// previews, usage and steps (index lines), and each line's type and round.
func render(s *cairn.Session, lines []*cairn.Line, rounds []*cairn.Round, blocks []*cairn.Block) string {
	var b strings.Builder
	fmt.Fprintf(&b, "session %s agent=%s lineage=%s parent=%s project=%s version=%s branch=%s\n",
		s.ID, s.Agent, s.Lineage, s.Parent, s.Project, s.Version, s.GitBranch)
	for _, r := range rounds {
		fmt.Fprintf(&b, "\nround %d lines %d-%d %s..%s\n  user: %q\n  agent: %q\n  tools: %v usage: %+v\n",
			r.Seq, r.FirstLine, r.LastLine, r.StartedAt.Format("15:04:05.000"), r.EndedAt.Format("15:04:05.000"),
			r.UserPreview, r.AgentPreview, r.Tools, r.Usage)
		var rb []*cairn.Block
		for _, bl := range blocks {
			if bl.RoundSeq == r.Seq {
				rb = append(rb, bl)
				fmt.Fprintf(&b, "  block line %d %s/%s %s %q\n", bl.LineNo, bl.Role, bl.Kind, bl.ToolName, clip(bl.Content))
			}
		}
		for _, st := range cairn.Steps(rb, r.LastLine) {
			fmt.Fprintf(&b, "  step %s\n", st.IndexLine())
		}
	}
	b.WriteString("\n")
	for _, l := range lines {
		fmt.Fprintf(&b, "line %d round %d %s %s\n", l.No, l.RoundSeq, l.Status, l.Type)
	}
	return b.String()
}

func clip(s string) string {
	if r := []rune(s); len(r) > 60 {
		return string(r[:60]) + "…"
	}
	return s
}

// TestGolden pins how each sample parses.
func TestGolden(t *testing.T) {
	for _, path := range samples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, lines, rounds, blocks, _ := build(t, path)
			got := render(s, lines, rounds, blocks)
			golden := filepath.Join("testdata", "golden", filepath.Base(path)+".golden.txt")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s differs from its golden file (go test ./codex -update rewrites it):\n%s", path, got)
			}
		})
	}
}

// TestIncremental checks that a file imported in two parts, cut at any
// line, builds the rounds a single read builds: the second part replays the
// last round's lines first, as inscribe does.
func TestIncremental(t *testing.T) {
	for _, path := range samples(t) {
		t.Run(filepath.Base(path), func(t *testing.T) {
			s, lines, rounds, blocks, msgs := build(t, path)
			want := render(s, lines, rounds, blocks) + fmt.Sprint(len(msgs))
			for cut := 1; cut < len(lines); cut++ {
				sess := *s
				b := codex.Format{}.NewBuilder(&sess, 0)
				var got []*cairn.Line
				for _, l := range lines[:cut] {
					c := &cairn.Line{SessionID: s.ID, No: l.No, Raw: l.Raw}
					b.Add(c)
					got = append(got, c)
				}
				first, _, _ := b.Finish()
				last := first[len(first)-1]
				b = codex.Format{}.NewBuilder(&sess, last.Seq)
				for _, l := range got[last.FirstLine-1:] {
					b.Add(l)
				}
				for _, l := range lines[cut:] {
					c := &cairn.Line{SessionID: s.ID, No: l.No, Raw: l.Raw}
					if p := b.Add(c); p != "" {
						c.Type += " (" + p + ")"
					}
					got = append(got, c)
				}
				second, seq2, msgs2 := b.Finish()
				bl2 := cairn.CollectBlocks(seq2)
				var fr []*cairn.Round
				for _, r := range first {
					if r.Seq < last.Seq {
						fr = append(fr, r)
					}
				}
				_, _, _, bl1, msgs1 := build(t, path)
				var keep []*cairn.Block
				for _, bl := range bl1 {
					if bl.RoundSeq < last.Seq {
						keep = append(keep, bl)
					}
				}
				nmsgs := len(msgs2)
				for _, m := range msgs1 {
					if m.RoundSeq < last.Seq {
						nmsgs++
					}
				}
				for _, l := range got[:cut] {
					for _, w := range lines {
						if w.No == l.No && l.Type != w.Type && !strings.Contains(w.Type, "(") {
							l.Type = w.Type
						}
					}
				}
				if g := render(s, lines, append(fr, second...), append(keep, bl2...)) + fmt.Sprint(nmsgs); g != want {
					t.Fatalf("cut at line %d: the rounds differ from a single read:\n%s\nwant:\n%s", cut, g, want)
				}
			}
		})
	}
}

// TestIdentify checks what names a session: session_meta, else the file
// name; a sub-agent names its parent thread; other files are not rollouts.
func TestIdentify(t *testing.T) {
	for _, c := range []struct {
		name, path, head string
		id, parent       string
		rollout          bool
	}{
		{"Meta", "x.jsonl", `{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"019a0000-aaaa-7bbb-8ccc-000000000009","cwd":"/a"}}`, "019a0000-aaaa-7bbb-8ccc-000000000009", "", true},
		{"Name", "rollout-2026-01-01T00-00-00-019a0000-aaaa-7bbb-8ccc-00000000000a.jsonl", `{broken`, "019a0000-aaaa-7bbb-8ccc-00000000000a", "", true},
		{"FirstEra", "x.jsonl", `{"id":"3a5c1d20-1111-4222-8333-444455556666","timestamp":"2025-04-20T09:00:00.000Z","instructions":null}`, "3a5c1d20-1111-4222-8333-444455556666", "", true},
		{"ClaudeCode", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl", `{"type":"user","sessionId":"5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01","uuid":"u1","message":{"role":"user","content":"hi"}}`, "", "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			head := [][]byte{[]byte(c.head + "\n")}
			if got := codex.IsRollout(c.path, head); got != c.rollout {
				t.Fatalf("IsRollout = %v, want %v", got, c.rollout)
			}
			if !c.rollout {
				return
			}
			s, err := codex.Format{}.Identify(c.path, head)
			if err != nil {
				t.Fatal(err)
			}
			if s.ID != c.id || s.Parent != c.parent || s.Agent != cairn.AgentCodex {
				t.Errorf("got id %s parent %q agent %s", s.ID, s.Parent, s.Agent)
			}
		})
	}
}

// TestLineStatus checks how lines are judged, including those only
// validated (events, world state): a broken one is invalid JSON, an
// unknown type is kept and reported.
func TestLineStatus(t *testing.T) {
	for _, c := range []struct {
		name, raw string
		want      cairn.LineStatus
		typ       string
	}{
		{"Event", `{"timestamp":"2026-01-01T00:00:00Z","ordinal":3,"type":"event_msg","payload":{"type":"task_started","turn_id":"t"}}`, cairn.LineOK, "event_msg"},
		{"EventBroken", `{"timestamp":"2026-01-01T00:00:00Z","ordinal":3,"type":"event_msg","payload":{"type":"task_started","turn_id":`, cairn.LineInvalidJSON, ""},
		{"WorldState", `{"timestamp":"2026-01-01T00:00:00Z","type":"world_state","payload":{"full":true}}`, cairn.LineOK, "world_state"},
		{"TokenCount", `{"timestamp":"2026-01-01T00:00:00Z","type":"event_msg","payload":{"type":"token_count","info":null}}`, cairn.LineOK, "event_msg"},
		{"Unknown", `{"timestamp":"2026-01-01T00:00:00Z","type":"new_thing","payload":{}}`, cairn.LineUnknownType, "new_thing"},
		{"Blank", "  ", cairn.LineBlank, ""},
		{"NotJSON", `{broken`, cairn.LineInvalidJSON, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := &cairn.Session{ID: "019a0000-aaaa-7bbb-8ccc-000000000009", Agent: cairn.AgentCodex}
			b := codex.Format{}.NewBuilder(s, 0)
			l := &cairn.Line{No: 1, Raw: []byte(c.raw + "\n")}
			b.Add(l)
			if l.Status != c.want || l.Type != c.typ {
				t.Errorf("status %s type %q, want %s %q", l.Status, l.Type, c.want, c.typ)
			}
		})
	}
}
