package http_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// The page knows the server: while it is gone the page says so (never the
// browser's "Failed to fetch"), it reconnects by itself when the server is
// back and fetches what it missed (the rounds imported meanwhile); the
// sessions the watcher is importing carry a running badge.
func TestBrowserReconnects(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	dir := Artifacts(t)

	// A real session of forty short rounds (testdata/long), its last ten
	// rounds not written yet.
	const id = "7a11c0de-0000-4000-8000-000000000158"
	all, err := os.ReadFile(filepath.Join("../testdata/long", id+".jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(all), "\n")
	var prompts []int
	for i, l := range lines {
		if strings.Contains(l, `"type":"user"`) && strings.Contains(l, `"promptIndex"`) {
			prompts = append(prompts, i)
		}
	}
	if len(prompts) != 40 {
		t.Fatalf("%d prompts, want 40", len(prompts))
	}
	file := filepath.Join(t.TempDir(), id+".jsonl")
	write := func(ls []string) {
		if err := os.WriteFile(file, []byte(strings.Join(ls, "")), 0o644); err != nil {
			t.Fatal(err)
		}
		if fr, problems := st.importer.ImportFile(context.Background(), file); fr.Error != "" || len(problems) > 0 {
			t.Fatalf("import: %s %v", fr.Error, problems)
		}
	}
	write(lines[:prompts[30]])

	// Running: the watcher imported it just now.
	s.Notify(id)
	Step(t, ctx, "the list", chromedp.Navigate(s.URL()+"/#/"))
	Wait(t, ctx, "the session marked running", `document.querySelector('#sessions tr[data-id="`+id+`"] .badge.running')`)
	if n := Eval[int](t, ctx, `document.querySelectorAll("#sessions .badge.running").length`); n != 1 {
		t.Fatalf("%d sessions marked running, want 1", n)
	}
	Step(t, ctx, "the session", chromedp.Navigate(s.URL()+"/#/session/"+id))
	Wait(t, ctx, "its thirty rounds", `document.getElementById("more") && document.getElementById("more").textContent === "all 30 rounds"`)
	if !Eval[bool](t, ctx, `!!document.querySelector("#session-meta .badge.running")`) {
		t.Fatal("the session's page does not mark it running")
	}
	if !Eval[bool](t, ctx, `document.getElementById("conn").hidden`) {
		t.Fatalf("connected, the page says %q", Eval[string](t, ctx, `document.getElementById("conn").textContent`))
	}

	// The server goes; the page says so, and a click that needs it says
	// the same, in words.
	port := s.Port()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	Wait(t, ctx, "the page knows", `!document.getElementById("conn").hidden`)
	Step(t, ctx, "open a round", jsClick(`.round[data-seq="3"] .line .index`))
	Wait(t, ctx, "the round says why it is empty", `document.querySelector('.round[data-seq="3"] .body .error')`)
	text := Eval[string](t, ctx, `document.body.innerText`)
	t.Logf("server gone: %q; the round: %q", Eval[string](t, ctx, `document.getElementById("conn").textContent`), Eval[string](t, ctx, `document.querySelector('.round[data-seq="3"] .body .error').textContent`))
	if strings.Contains(text, "Failed to fetch") || strings.Contains(text, "NetworkError") {
		t.Fatalf("the page shows the browser's words: %q", text)
	}
	if got := Eval[string](t, ctx, `document.getElementById("conn").textContent`); !strings.Contains(got, "server") {
		t.Fatalf("the connection reads %q", got)
	}
	shot, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	writeArtifact(t, dir, "server-gone.png", shot)

	// Meanwhile the session grows by ten rounds; the server comes back on
	// its port, and the page catches up without a reload.
	write(lines)
	back := cairnhttp.NewServer()
	st.Serve(back)
	back.Addr = "127.0.0.1:" + itoa(port)
	MustOpen(t, back)
	Wait(t, ctx, "reconnected", `document.getElementById("conn").hidden`)
	Wait(t, ctx, "caught up", `document.getElementById("more").textContent === "all 40 rounds · live" && document.getElementById("session-rounds").textContent === "40 rounds" && document.querySelectorAll("#timeline .round").length === 41`)
}
