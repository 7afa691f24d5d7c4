package claudetest_test

import (
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// shapeFlags are the client flags of sessions 152 to 155: TodoWrite
// besides the file and shell tools. CLAUDE_CODE_ENABLE_TASKS=0 gives the
// client TodoWrite instead of its Task tools, as users who set it get.
var (
	shapeFlags = []string{"--allowedTools", "Bash Read Write Edit TodoWrite", "--tools", "Bash,Read,Write,Edit,TodoWrite"}
	shapeEnv   = []string{"CLAUDE_CODE_ENABLE_TASKS=0"}
)

// A shape is one session of testdata/long made from a script: the
// project it runs in and its files, the fake API's turns and summary,
// and the client's invocations, each a prompt (a first one starts the
// session, the others resume it).
type shape struct {
	id      string
	root    string
	seed    map[string]string
	turns   []fakeapi.Turn
	summary string
	refuse  []int    // conversation requests answered "prompt is too long"
	model   []string // --model, when not the client's default
	prompts []string
}

// generateShapes makes sessions 152 to 155, those -long asks for, and
// returns their ids.
func generateShapes(t *testing.T, bin string) []string {
	var ids []string
	for _, s := range shapes() {
		if !wantLong(s.id) {
			continue
		}
		if err := seed(s.root, s.seed); err != nil {
			t.Fatal(err)
		}
		api := fakeapi.New(s.turns...)
		api.SetSummary(s.summary)
		api.SetUsage(func(n int) int { return n / fakeapi.BytesPerToken })
		if len(s.refuse) > 0 {
			api.SetRefuse(refuseAt(s.refuse...))
		}
		calls := 0
		for _, turn := range s.turns {
			calls += toolCalls(turn.Steps)
		}
		t.Logf("%s: %d scripted tool calls, refusals at requests %v", s.id, calls, s.refuse)
		for i, p := range s.prompts {
			args := []string{"--resume", s.id, "-p", p}
			if i == 0 {
				args[0] = "--session-id"
			}
			args = append(append(args, s.model...), shapeFlags...)
			res := claudetest.RunEnv(t, shapeEnv, bin, longHome, s.root, api.URL, args...)
			if res.IsError {
				t.Fatalf("%s: claude %v: %+v", s.id, args, res)
			}
		}
		api.Close()
		ids = append(ids, s.id)
	}
	return ids
}

func shapes() []shape {
	l1, l2, l3 := ledgerRound1(), ledgerRound2(), ledgerRound3()
	m1, m2, m3 := meteoRound1(), meteoRound2(), meteoRound3()
	c1, c2, c3 := catalogRound1(), catalogRound2(), catalogRound3()
	w1, w2 := tracerRound1(), tracerRound2()
	return []shape{
		{
			id: longBefore, root: ledgerRoot, seed: ledgerSeed(), summary: ledgerSummary,
			turns: []fakeapi.Turn{
				{Match: "Set up the ledger module", Steps: l1},
				{Match: "Now the statement import", Steps: l2},
				{Match: "How many mismatches", Steps: l3},
			},
			// Half way through round 2.
			refuse:  []int{len(l1) + len(l2)/2},
			prompts: []string{ledgerPrompt1, ledgerPrompt2, ledgerPrompt3},
		},
		{
			id: longContinue, root: meteoRoot, seed: meteoSeed(), summary: meteoSummary,
			// "continue" last: a turn matches by substring, in order.
			turns: []fakeapi.Turn{
				{Match: "Build the meteo toolkit", Steps: m1},
				{Match: "Which station had the strongest wind", Steps: m3},
				{Match: "continue", Steps: m2},
			},
			prompts: []string{meteoPrompt1, "/compact", meteoPrompt2, meteoPrompt3},
		},
		{
			id: longSeveral, root: catalogRoot, seed: catalogSeed(), summary: catalogSummary,
			turns: []fakeapi.Turn{
				{Match: "Translate the shop's message catalog", Steps: c1},
				{Match: "Now add plural forms", Steps: c2},
				{Match: "Give me the coverage per locale", Steps: c3},
			},
			// Half way through round 1, at a third and two thirds of round 2
			// (each refusal is asked again after the compaction: one more request).
			refuse:  []int{len(c1) / 2, len(c1) + 1 + len(c2)/3, len(c1) + 2 + 2*len(c2)/3},
			prompts: []string{catalogPrompt1, catalogPrompt2, catalogPrompt3},
		},
		{
			id: longWide, root: tracerRoot, seed: tracerSeed(),
			turns: []fakeapi.Turn{
				{Match: "Find out why checkout latency spiked", Steps: w1},
				{Match: "Now write a Go tool, cmd/latency", Steps: w2},
			},
			model:   []string{"--model", tracerModel},
			prompts: []string{tracerPrompt1, tracerPrompt2},
		},
	}
}
