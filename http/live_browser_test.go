package http_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/claudecode"

	"github.com/chromedp/chromedp"
)

// A running session grows on screen: the transcript grows, the watcher
// imports it and notifies the server, the open page shows the new round
// within a second.
func TestBrowserLive(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)

	// Session A's transcript, without its last round yet.
	all, err := os.ReadFile(filepath.Join(samples, sessionA+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	cut := 0
	for i, l := range lines {
		if strings.Contains(l, `"type":"user"`) && strings.Contains(l, `"promptIndex"`) {
			cut = i // the last real prompt starts the last round
		}
	}
	const id = "5f0c2a1e-8d4b-4c7a-9e31-00000000c0de"
	watched := t.TempDir()
	file := filepath.Join(watched, id+".jsonl")
	write := func(ls []string) {
		if err := os.WriteFile(file, []byte(strings.ReplaceAll(strings.Join(ls, ""), sessionA, id)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(lines[:cut])
	watch(t, st, s, claudecode.Format{}, watched)

	waitStored(t, s, id, 0)
	Step(t, ctx, "open the running session", chromedp.Navigate(s.URL()+"/#/session/"+id))
	Wait(t, ctx, "its rounds", `document.querySelectorAll("#timeline .round").length >= 2 && document.getElementById("more").textContent.startsWith("all")`)
	before := Eval[int](t, ctx, `document.querySelectorAll("#timeline .round").length`)

	start := time.Now()
	write(lines)
	Wait(t, ctx, "the new round on screen", `document.querySelectorAll("#timeline .round").length > `+itoa(before))
	took := time.Since(start)
	t.Logf("a new round on screen %v after the transcript grew", took)
	if took > time.Second*Slack() {
		t.Fatalf("the new round took %v to show, want under a second (×%d)", took, Slack())
	}
	if got := Eval[string](t, ctx, `document.getElementById("session-rounds").textContent`); got != itoa(before)+" rounds" {
		t.Fatalf("header reads %q after the round arrived, want %d rounds", got, before)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "live.png", shot)
}

func itoa(n int) string { return strconv.Itoa(n) }
