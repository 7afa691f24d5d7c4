package claudecode_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestSuggestRules runs the suggestion rules over every sample and public
// transcript, each session taken as one frame titled by its first prompt:
// the size rule fires exactly when the thresholds are passed; the area rule
// as the rounds move to new folders; the prompt rule on later prompts that
// share no word with the first; the plan rule on prompts listing tasks.
// What fired on the public sessions is pinned as a golden
// (go test ./claudecode -update).
func TestSuggestRules(t *testing.T) {
	var report strings.Builder
	fired := map[string]int{}
	for _, path := range append(samples(t), shared(t)...) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s, _, rounds, blocks, _ := build(t, path, data)
		byRound := map[int]*cairn.Round{}
		for _, r := range rounds {
			byRound[r.Seq] = r
		}
		for _, b := range blocks {
			byRound[b.RoundSeq].Blocks = append(byRound[b.RoundSeq].Blocks, b)
		}
		if len(rounds) < 2 {
			continue
		}
		rounds = rounds[1:]
		f := &cairn.Frame{ID: "f1", Title: rounds[0].UserPreview}
		name := filepath.Base(filepath.Dir(path)) + "/" + filepath.Base(path)
		var lines []string
		total := 0
		for i, r := range rounds {
			total += r.LastLine - r.FirstLine + 1
			got := cairn.SuggestBySize(f, rounds[:i+1])
			want := i+1 > cairn.SuggestMaxRounds || total > cairn.SuggestMaxLines
			if (got != nil) != want {
				t.Fatalf("%s: size rule after %d rounds, %d lines: %v, want %v", name, i+1, total, got, want)
			}
		}
		var known []string
		for _, r := range rounds {
			var sg *cairn.Suggestion
			if sg, known = cairn.SuggestByArea(f, s.Project, known, cairn.StepPaths(r)); sg != nil {
				fired["area"]++
				lines = append(lines, fmt.Sprintf("round %d area: %s", r.Seq, sg.Reason))
			}
			prompt := ""
			for _, b := range r.Blocks {
				if b.Kind == cairn.UserText && prompt == "" {
					prompt = b.Content
				}
			}
			if r.Seq > 1 {
				if sg := cairn.SuggestByPrompt(f, prompt); sg != nil {
					fired["prompt"]++
					lines = append(lines, fmt.Sprintf("round %d prompt: %q", r.Seq, clipTo(prompt, 80)))
				}
			}
			if sg := cairn.SuggestByPlan(f.ID, prompt); sg != nil {
				fired["plan"]++
				lines = append(lines, fmt.Sprintf("round %d plan: %s", r.Seq, sg.Reason))
			}
		}
		if cairn.SuggestBySize(f, rounds) != nil {
			fired["size"]++
			lines = append(lines, "size: "+cairn.SuggestBySize(f, rounds).Reason)
		}
		if strings.Contains(path, sharedTranscripts) && len(lines) > 0 {
			fmt.Fprintf(&report, "%s (%d rounds)\n  %s\n", name, len(rounds), strings.Join(lines, "\n  "))
		}
	}
	t.Logf("fired on real sessions: %v", fired)
	if len(shared(t)) > 0 {
		compare(t, filepath.Join("testdata", "golden", "suggest.txt"), []byte(report.String()))
		if fired["area"] == 0 || fired["prompt"] == 0 || fired["size"] == 0 {
			t.Errorf("the size, area or prompt rule never fired on the public sessions: %v", fired)
		}
	}
}

// TestSuggestByPlanAndPrompt pins the prompt rules on small cases.
func TestSuggestByPlanAndPrompt(t *testing.T) {
	f := &cairn.Frame{ID: "auth", Title: "JWT authentication", SuccessCriteria: "login and logout issue and revoke tokens"}
	for _, c := range []struct {
		prompt     string
		push, plan bool
	}{
		{"fix the token expiry in login", false, false},                 // shares words with the frame
		{"write the billing export to CSV for accounting", true, false}, // unlike the frame
		{"what does this do?", false, false},                            // not a request for work
		{"1. add invoices\n2. add payments\n3. write the tests", true, true},
		{"add the tokens table, then the login route, then the tests", false, true},
	} {
		if got := cairn.SuggestByPrompt(f, c.prompt) != nil; got != c.push {
			t.Errorf("prompt rule on %q: %v, want %v", c.prompt, got, c.push)
		}
		if got := cairn.SuggestByPlan(f.ID, c.prompt) != nil; got != c.plan {
			t.Errorf("plan rule on %q: %v, want %v", c.prompt, got, c.plan)
		}
	}
}

func clipTo(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
