package http_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/bench"
	cairnhttp "github.com/cairn-dev/cairn/http"

	"github.com/chromedp/chromedp"
)

// LargeRounds is the size of the session the viewer must open quickly.
const LargeRounds = 5000

// OpenBudget is how long opening it may take: the session and its first
// page of rounds, shown.
const OpenBudget = time.Second

// mustLargeSession writes a generated session of n rounds, imports it into
// st and returns its ID.
func mustLargeSession(tb testing.TB, st *Store, n int) string {
	tb.Helper()
	g, err := bench.NewGenerator(samples, 1)
	if err != nil {
		tb.Fatal(err)
	}
	id := "0b1e0000-0000-4000-8000-000000005000"
	var data []byte
	at := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	for i := range n {
		data = append(data, g.Round(id, at.Add(time.Duration(i)*time.Minute))...)
	}
	path := filepath.Join(tb.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		tb.Fatal(err)
	}
	if fr, problems := st.importer.ImportFile(context.Background(), path); fr.Error != "" || len(problems) > 0 {
		tb.Fatalf("import %s: %s %v", path, fr.Error, problems)
	}
	return id
}

// A 5,000-round session opens in under a second: the page asks for the
// session and one page of rounds, not all of them.
func TestLargeSession(t *testing.T) {
	if testing.Short() {
		t.Skip("generates and imports a 5,000-round session")
	}
	s, st := MustOpenServer(t)
	id := mustLargeSession(t, st, LargeRounds)

	t.Run("API", func(t *testing.T) {
		start := time.Now()
		var sess cairnhttp.SessionResponse
		MustGet(t, s, "/api/sessions/"+id, &sess)
		var page cairnhttp.RoundsResponse
		MustGet(t, s, "/api/sessions/"+id+"/rounds", &page)
		elapsed := time.Since(start)
		t.Logf("API: session and first page of %d rounds of %d in %v", len(page.Rounds), sess.Session.Rounds, elapsed)
		// Pages are seq ranges: a session without round 0 has 199 on its first.
		if sess.Session.Rounds < LargeRounds || len(page.Rounds) < cairnhttp.PageSize-1 || page.Next != cairnhttp.PageSize {
			t.Fatalf("%d rounds, page of %d, next %d", sess.Session.Rounds, len(page.Rounds), page.Next)
		}
		if elapsed > OpenBudget*Slack() {
			t.Fatalf("opening took %v, want under %v (×%d)", elapsed, OpenBudget, Slack())
		}
	})

	t.Run("Browser", func(t *testing.T) {
		ctx := MustBrowser(t)
		Step(t, ctx, "load the page", chromedp.Navigate(s.URL()+"/"))
		Wait(t, ctx, "sessions listed", `document.querySelector("#sessions")`)
		// Timed in the page, from the click that opens the session to the
		// frame that shows its first page of rounds.
		octx, cancel := context.WithTimeout(ctx, StateDeadline)
		defer cancel()
		ms, err := chromedp.Run(octx, chromedp.Evaluate[float64](`new Promise(done => {
			const t0 = performance.now();
			location.hash = "#/session/`+id+`";
			const check = () => document.querySelectorAll("#timeline .round").length >= 199
				? done(performance.now() - t0) : requestAnimationFrame(check);
			check();
		})`, chromedp.EvalAwaitPromise))
		if err != nil {
			t.Fatal(err)
		}
		elapsed := time.Duration(ms * float64(time.Millisecond))
		t.Logf("browser: %d-round session open, its first page shown, in %v", LargeRounds, elapsed.Round(time.Millisecond))
		if elapsed > OpenBudget*Slack() {
			t.Fatalf("opening took %v, want under %v (×%d)", elapsed, OpenBudget, Slack())
		}
		// Scrolling to the end of the timeline loads the next page.
		Step(t, ctx, "scroll", chromedp.Evaluate[chromedp.Void](`document.getElementById("more").scrollIntoView()`))
		Wait(t, ctx, "second page shown", `document.querySelectorAll("#timeline .round").length >= 399`)
	})
}
