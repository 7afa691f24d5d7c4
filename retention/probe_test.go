package retention_test

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/retention"
)

// TestProbeRules checks the rules that keep probes specific: an error's
// message rather than its exit code, figures without durations, decisions
// without narration, deletions as artifacts, the prompt's first sentence
// and its constraints, and the continuation (last todo list, last answer).
func TestProbeRules(t *testing.T) {
	r := newRound(1, 1).
		prompt("Make sure the tests pass. Never touch the vendor dir, it is generated.").
		call("m1", "Bash", bash("go test ./... && rm -f build/old.bin"), "Exit code 1\n\nok  cairn 0.4s\nFAIL cairn/store [build failed]\nstore.go:12: undefined: x", true).
		call("m2", "Bash", bash("go test -count=1 ./store"), "ok  cairn/store 0.3s\n12 passed in 4 seconds\ncoverage: 81.5% of statements", false).
		text("m3", "Let me check the store because it fails. The root cause is a missing lock.").
		call("m4", "Bash", bash("go build ./..."), "Exit code 2", true).
		call("m5", "Bash", bash("git mv notes.md docs/notes.md"), "", false).
		call("m6", "TodoWrite", `{"todos":[{"content":"Add the lock","status":"in_progress"},{"content":"Rerun the tests","status":"pending"}]}`, "ok", false).
		text("m7", "Added the lock; the store tests pass.").r
	s := &cairn.Session{ID: "s1", Project: "/p"}
	var got []string
	for _, p := range retention.Probes(s, []*cairn.Round{r}) {
		got = append(got, fmt.Sprintf("%s %s %s", p.Category, p.Ref(), p.Answer))
	}
	want := []string{
		"prompt 1 Make sure the tests pass.",
		"prompt 1 Never touch the vendor dir, it is generated.",
		"artifact 1.1 build/old.bin",
		"command 1.1 go test ./... && rm -f build/old.bin",
		"error 1.1 FAIL cairn/store [build failed]",
		"command 1.2 go test -count=1 ./store",
		"number 1.2 12 passed",
		"number 1.2 81.5%",
		"decision 1.3 The root cause is a missing lock.",
		"command 1.4 go build ./...", // its error says only "Exit code 2": no probe
		"artifact 1.5 notes.md",
		"command 1.5 git mv notes.md docs/notes.md",
		"decision 1.7 Added the lock; the store tests pass.",
		"continuation 1.6 Add the lock",
		"continuation 1.6 Rerun the tests",
		"continuation 1.7 Added the lock; the store tests pass.",
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("probes:\n%q\nwant:\n%q", got, want)
	}
}
