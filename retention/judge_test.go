package retention_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/retention"
)

// builder makes blocks of one round: each assistant block opens a step
// when its message id is new.
type builder struct {
	r    *cairn.Round
	line int
}

func newRound(seq, firstLine int) *builder {
	return &builder{r: &cairn.Round{SessionID: "s1", Seq: seq, FirstLine: firstLine, LastLine: firstLine}, line: firstLine - 1}
}

func (b *builder) add(role string, kind cairn.BlockKind, msg, content string, opts ...func(*cairn.Block)) *builder {
	b.line++
	bl := &cairn.Block{SessionID: "s1", RoundSeq: b.r.Seq, LineNo: b.line, Index: len(b.r.Blocks), Role: role, Kind: kind, MessageID: msg, Content: content}
	for _, o := range opts {
		o(bl)
	}
	b.r.Blocks = append(b.r.Blocks, bl)
	b.r.LastLine = b.line
	return b
}

func (b *builder) prompt(text string) *builder {
	return b.add("user", cairn.UserText, "", text)
}

func (b *builder) text(msg, text string) *builder {
	return b.add("assistant", cairn.AssistantText, msg, text)
}

func (b *builder) call(msg, tool, input, result string, isError bool) *builder {
	id := fmt.Sprintf("t%d", b.line+1)
	b.add("assistant", cairn.ToolUse, msg, input, func(bl *cairn.Block) { bl.ToolName, bl.ToolID = tool, id })
	return b.add("user", cairn.ToolResult, "", result, func(bl *cairn.Block) { bl.ToolName, bl.ToolID, bl.IsError = tool, id, isError })
}

func bash(cmd string) string { return fmt.Sprintf(`{"command":%q}`, cmd) }

// twoRounds is a session of two rounds: round 1 (lines 1-4) large, round
// 2 (lines 10-15) of three steps.
func twoRounds() (*cairn.Session, []*cairn.Round) {
	r1 := newRound(1, 1).
		prompt("Build the inventory module.").
		call("m1", "Bash", bash("go test ./..."), "12 passed\n"+strings.Repeat("x", 4000), false).
		text("m2", "The root cause is the missing lock on the store.").r
	r2 := newRound(2, 10).
		prompt("Fix the flaky test.").
		call("m3", "Bash", bash("rm old.go"), "", false).
		call("m4", "Bash", bash("go vet ./..."), "vet: 3 warnings", false).
		text("m5", "Done: the root cause is the missing lock on the store, fixed.").r
	return &cairn.Session{ID: "s1", Project: "/p"}, []*cairn.Round{r1, r2}
}

// TestStrictJudge judges hand-built probes in a hand-built output: round
// 1 shown as its index row, round 2 keeping its prompt and last step, its
// first two steps left to the client's summary (the range sentence), named
// by a run too large to read and step 2.2 by its own index line.
func TestStrictJudge(t *testing.T) {
	s, rounds := twoRounds()
	r1, r2 := rounds[0], rounds[1]
	m := &cairn.Materialization{Operation: cairn.OpRevive, Sources: []*cairn.Session{s}, Fidelity: cairn.FullFidelity, Budget: 400,
		Pieces: []*cairn.Piece{
			{Round: r1},
			{Round: r2, Full: true, Keep: []cairn.LineRange{{From: 10, To: 10}, {From: 15, To: 15}},
				Index: []cairn.IndexEntry{
					{Round: 2, From: 1, To: 2, Line: "2.1-2.2 Bash `rm old.go` · Bash `go vet ./...`", Tokens: 5000},
					{Round: 2, From: 2, To: 2, Line: "2.2 Bash `go vet ./...` → vet: 3 warnings", Tokens: 40},
				},
				Compaction: &cairn.Compaction{SessionID: "s1", RoundSeq: 2, StepsBefore: 2}},
		}}
	summary := strings.Join([]string{
		"Steps 2.1 to 2.2 of round 2, from before it, are stored in full: `cairn inject SESSION 2.STEP` reads one.",
		"| 001 | 2026-01-01T00:00Z | user→assistant | [tool_use: Bash] go test ./... |",
		"- 2.1-2.2 Bash `rm old.go` · Bash `go vet ./...`",
		"- 2.2 Bash `go vet ./...` → vet: 3 warnings",
	}, "\n")
	text := summary + "\nFix the flaky test.\n\nDone: the root cause is the missing lock on the store, fixed.\n"
	v := retention.FromMaterialization("revive", m, summary, text, rounds)
	if v.HopLimit != 200 {
		t.Fatalf("hop limit %d, want half the budget", v.HopLimit)
	}
	probe := func(c retention.Category, round, step int, answer string) *retention.Probe {
		return &retention.Probe{Category: c, Round: round, Step: step, Answer: answer}
	}
	for _, c := range []struct {
		name            string
		p               *retention.Probe
		strict, lenient retention.Verdict
	}{
		{"a round row too large to read is no hop", probe(retention.Command, 1, 1, "go test ./..."), retention.Lost, retention.InContext},
		{"a range sentence and a run too large give nothing", probe(retention.Artifact, 2, 1, "old.go"), retention.Lost, retention.InContext},
		{"an answer in another step's text is not in context", probe(retention.Decision, 1, 2, "The root cause is the missing lock on the store"), retention.Lost, retention.InContext},
		{"a summary line that begins with the step holds it", probe(retention.Number, 2, 2, "3 warnings"), retention.InContext, retention.InContext},
		{"a step's own index line is a hop", probe(retention.Error, 2, 2, "permission denied"), retention.OneHop, retention.OneHop},
		{"the kept prompt", probe(retention.Prompt, 2, 0, "Fix the flaky test"), retention.InContext, retention.InContext},
		{"the kept last step", probe(retention.Continuation, 2, 3, "Done: the root cause"), retention.InContext, retention.InContext},
		{"nothing names it", probe(retention.Error, 3, 1, "disk full"), retention.Lost, retention.Lost},
	} {
		t.Run(c.name, func(t *testing.T) {
			folded := strings.ToLower(strings.Join(strings.Fields(v.Text), " "))
			if got := retention.Judge(c.p, v, folded); got != c.strict {
				t.Errorf("strict: %s, want %s (steps %q, hops %v)", got, c.strict, v.Steps[c.p.Ref()], v.Hops)
			}
			if got := retention.JudgeLenient(c.p, v, folded); got != c.lenient {
				t.Errorf("lenient: %s, want %s", got, c.lenient)
			}
		})
	}

	probes := []*retention.Probe{probe(retention.Command, 1, 1, "go test ./..."), probe(retention.Continuation, 2, 3, "Done: the root cause")}
	sc := retention.Measure(probes, retention.StepRefs(rounds), v)
	if sc.Steps != 5 || sc.Reachable != 2 || !sc.Continues {
		t.Errorf("steps %d, reachable %d (want 2: 2.2 one hop, 2.3 in full), continues %v", sc.Steps, sc.Reachable, sc.Continues)
	}
	if sc.Strict.Lost != 1 || sc.Lenient.InContext != 2 {
		t.Errorf("strict %+v, lenient %+v", sc.Strict, sc.Lenient)
	}

	// Within a larger limit (issue 41: one hop is an index line naming the
	// step by its own ROUND.STEP): a row is a hop to its round's prompt,
	// not to its steps, and a run to none of its steps.
	v.HopLimit = 10_000
	if got := retention.Judge(probes[0], v, ""); got != retention.Lost {
		t.Errorf("a step under a round row within the limit: %s, want lost", got)
	}
	if got := retention.Judge(probe(retention.Prompt, 1, 0, "Run the tests"), v, ""); got != retention.OneHop {
		t.Errorf("a prompt under its round's row within the limit: %s, want one hop", got)
	}
	if got := retention.Judge(probe(retention.Artifact, 2, 1, "old.go"), v, ""); got != retention.Lost {
		t.Errorf("a step in a run within the limit: %s, want lost", got)
	}
}

// TestKeptSteps: a full piece holds, as each step's own text, the blocks
// on the lines it keeps, and nothing of the steps it leaves out.
func TestKeptSteps(t *testing.T) {
	_, rounds := twoRounds()
	m := &cairn.Materialization{Sources: []*cairn.Session{{ID: "s1"}}, Fidelity: cairn.FullFidelity,
		Pieces: []*cairn.Piece{{Round: rounds[0], Full: true}, {Round: rounds[1], Full: true, Keep: []cairn.LineRange{{From: 13, To: 15}}}}}
	v := retention.FromMaterialization("x", m, "", "go vet ./... 3 warnings go test ./...", rounds)
	for ref, want := range map[string]bool{"1": true, "1.1": true, "1.2": true, "2": false, "2.1": false, "2.2": true, "2.3": true} {
		if v.Full[ref] != want && ref != "1" && ref != "2" {
			t.Errorf("%s in full: %v, want %v", ref, v.Full[ref], want)
		}
		if _, ok := v.Steps[ref]; ok != want {
			t.Errorf("%s has text: %v, want %v", ref, ok, want)
		}
	}
	if !strings.Contains(v.Steps["2.2"], "Bash command: go vet ./...") || !strings.Contains(v.Steps["2.2"], "vet: 3 warnings") || strings.Contains(v.Steps["2.2"], "rm old.go") {
		t.Errorf("step 2.2 holds %q", v.Steps["2.2"])
	}
}

// TestProbesRoundZero (issue 41 c): the work before the first typed prompt
// (a forked or resumed file: the client's summary, then steps) is probed
// like any round's, without a prompt probe for the summary; a round 0 of
// metadata alone adds nothing.
func TestProbesRoundZero(t *testing.T) {
	s, rounds := twoRounds()
	r0 := newRound(0, 1).
		prompt("This session is being continued from a previous conversation that ran out of context.").
		call("m0", "Bash", bash("awk -f mods/mod_018.awk"), "awk: syntax error at or near printf", true).r
	r0.Tools = []string{"Bash"}
	got := map[string]bool{}
	for _, p := range retention.Probes(s, append([]*cairn.Round{r0}, rounds...)) {
		got[string(p.Category)+"@"+p.Ref()] = true
		if p.Round == 0 && p.Category == retention.Prompt {
			t.Errorf("round 0 has a prompt probe: %q", p.Answer)
		}
	}
	for _, want := range []string{"command@0.1", "error@0.1", "prompt@1"} {
		if !got[want] {
			t.Errorf("no probe %s among %v", want, got)
		}
	}
	empty := newRound(0, 1).r
	if n, m := len(retention.Probes(s, append([]*cairn.Round{empty}, rounds...))), len(retention.Probes(s, rounds)); n != m {
		t.Errorf("a round 0 of metadata adds probes: %d, want %d", n, m)
	}
}
