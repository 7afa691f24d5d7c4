package claudetest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestPressure runs the real client with a tiny configured window: after a
// reply whose usage fills 10 % of it, the next prompt's request carries
// the pressure note (percentage, advice, command), once.
func TestPressure(t *testing.T) {
	for name, bin := range claudetest.Versions(t) {
		t.Run(name, func(t *testing.T) { pressure(t, bin) })
	}
}

func pressure(t *testing.T, bin string) {
	cairnBin := MustBuildCairn(t)
	api := fakeapi.New()
	defer api.Close()
	home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	mustCairn(t, cairnBin, proj, "install", "claude", "--pressure", "5")
	// The stand-in API reports 100 input tokens a reply: 10 % of 1,000.
	f, err := os.OpenFile(filepath.Join(proj, ".cairn", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("context_window = 1000\n")
	f.Close()

	first := claudetest.Run(t, bin, home, proj, api.URL, "-p", "first prompt")
	if first.IsError {
		t.Fatalf("first: %+v", first)
	}
	if n := requestsWith(api.Requests(), "your context is"); n != 0 {
		t.Fatalf("a note before any reply: %d requests", n)
	}
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "second prompt")
	var note bool
	for _, r := range api.Requests() {
		b := string(r.Body)
		if strings.Contains(b, "second prompt") && strings.Contains(b, "your context is 10% of the way to where the client compacts it (100 of 1,000 tokens; window 1,000; past the 5% mark)") &&
			strings.Contains(b, "cairn advise recommends") && strings.Contains(b, "Command: cairn ") {
			note = true
		}
	}
	if !note {
		t.Fatal("the request after the crossing holds no pressure note")
	}
	before := len(api.Requests())
	claudetest.Run(t, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "third prompt")
	for _, r := range api.Requests()[before:] {
		if strings.Contains(string(r.Body), "third prompt") && strings.Count(string(r.Body), "your context is 10% of the way") > 1 {
			t.Fatal("the note came again without a new crossing")
		}
	}
}

// defaultOpus55 is the first release known to default to Opus 5.5, a 1M
// window (its status line says context_window_size 1000000): 2.1.330
// does, 2.1.197 defaults to a 200k model; releases between were not tried.
const defaultOpus55 = "2.1.330"

// TestPressureWindow measures against the client's own window: with a
// 200k model (claude-sonnet-4-5), which no release compacts at a
// threshold of its own (TestCompactionPoint), a reply of 150,300 tokens
// is 75 % of the way to the window, where the API refuses and the client
// compacts, and the note says so; with a 1M model (claude-sonnet-4-5[1m],
// which the client writes in the transcript) the same reply is 15 % and
// says nothing, and one of 700,000 is 72 % of 967,000 on 2.1.330, which
// compacts a 1M window there, 70 % of 1,000,000 on 2.1.197, which
// compacts none at a threshold. The newest release's default model
// (Opus 5.5) is measured as 1M too; the oldest's default is a 200k model.
func TestPressureWindow(t *testing.T) {
	cairnBin := MustBuildCairn(t)
	for _, c := range claudetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { pressureWindow(t, c, cairnBin) })
	}
}

func pressureWindow(t *testing.T, cl claudetest.Client, cairnBin string) {
	bin := cl.Path
	at70of1M := "your context is 72% of the way to where the client compacts it (700,000 of 967,000 tokens; window 1,000,000; past the 70% mark). At 100% the client compacts it, lossily."
	if !cl.AtLeast(defaultOpus55) {
		at70of1M = "your context is 70% of the way to where the client compacts it (700,000 of 1,000,000 tokens; window 1,000,000; past the 70% mark). The client compacts it at no threshold of its own"
	}
	cases := []struct {
		model  string
		tokens []int
		want   string
	}{
		{"claude-sonnet-4-5", []int{150_300}, "your context is 75% of the way to where the client compacts it (150,300 of 200,000 tokens; window 200,000; past the 70% mark). The client compacts it at no threshold of its own: at 100% the API refuses its request"},
		{"claude-sonnet-4-5[1m]", []int{150_300, 700_000}, at70of1M},
	}
	if cl.AtLeast(defaultOpus55) {
		cases = append(cases, struct {
			model  string
			tokens []int
			want   string
		}{"", []int{150_300, 700_000}, at70of1M})
	}
	for _, c := range cases {
		api := fakeapi.New()
		home, proj := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
		mustCairn(t, cairnBin, proj, "install", "claude")
		var env []string
		if c.model != "" {
			env = append(env, "ANTHROPIC_MODEL="+c.model)
		}
		api.SetInputTokens(100)
		first := claudetest.RunEnv(t, env, bin, home, proj, api.URL, "-p", "first prompt")
		for i, n := range c.tokens {
			api.SetInputTokens(n)
			claudetest.RunEnv(t, env, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", fmt.Sprintf("prompt %d", i))
		}
		before := len(api.Requests())
		claudetest.RunEnv(t, env, bin, home, proj, api.URL, "--resume", first.SessionID, "-p", "last prompt")
		var notes []string
		for _, r := range api.Requests() {
			if b := string(r.Body); strings.Contains(b, "your context is") {
				i := strings.Index(b, "your context is")
				notes = append(notes, b[i:min(len(b), i+160)])
			}
		}
		if requestsWith(api.Requests()[before:], c.want) == 0 {
			t.Errorf("model %q: no request holds %q; notes: %q", c.model, c.want, notes)
		}
		if c.want == at70of1M && requestsWith(api.Requests(), "15% of the way") != 0 {
			t.Errorf("a 1M session was told about 125,250 tokens: %q", notes)
		}
		api.Close()
	}
}
