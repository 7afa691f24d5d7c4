package http_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/pi"

	"github.com/chromedp/chromedp"
)

// LiveDeadline is how long a growing session's page may take to show what
// the watcher stored: a second is promised (TestBrowserLive), this is the
// deadline after which the page is taken never to show it.
const LiveDeadline = 10 * time.Second

// waitLive waits until cond holds in the page, for at most LiveDeadline.
func waitLive(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(LiveDeadline * Slack())
	for !Eval[bool](t, ctx, "!!("+cond+")") {
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s never held within %v without a reload; page: %s", what, cond, LiveDeadline*Slack(),
				Eval[string](t, ctx, `document.getElementById("main").innerText.slice(0, 800)`))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// watch runs the watcher over dir as cairn serve --watch does, importing
// with format and notifying s, until the test ends.
func watch(t *testing.T, st *Store, s *cairnhttp.Server, format cairn.Transcript, dir string) {
	t.Helper()
	im := &inscribe.Importer{Store: st.importer.Store, Format: format}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	// The watcher ends before the store the test's cleanup closes.
	t.Cleanup(func() { cancel(); <-done })
	go func() {
		defer close(done)
		im.Watch(ctx, []string{dir}, 50*time.Millisecond, func(fr *inscribe.FileReport, _ []inscribe.Problem) {
			if fr.SessionID != "" {
				s.Notify(fr.SessionID)
			}
		})
	}()
}

// waitStored waits until the watcher has stored session id, with rounds
// rounds when rounds > 0: on a busy machine its first import may come
// after a page would have asked.
func waitStored(t *testing.T, s *cairnhttp.Server, id string, rounds int) {
	t.Helper()
	for deadline := time.Now().Add(StateDeadline); ; time.Sleep(20 * time.Millisecond) {
		var got cairnhttp.SessionResponse
		code, body := Do(t, s, "GET", "/api/sessions/"+id, "")
		if code == 200 && (rounds <= 0 || json.Unmarshal([]byte(body), &got) == nil && got.Session.Rounds == rounds) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the watcher did not store %s (%d rounds) in %v", id, rounds, StateDeadline)
		}
	}
}

// appendTo appends lines to the file at path.
func appendTo(t *testing.T, path string, lines ...string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(strings.Join(lines, "")); err != nil {
		t.Fatal(err)
	}
}

// placeOf is a script giving where the block key (data-line, data-index)
// of round seq sits from the window's top, in pixels, else null.
func placeOf(seq, key string) string {
	return `(() => { const b = document.querySelector('#timeline > .round[data-seq="` + seq + `"] > .body ` + key + `'); return b ? Math.round(b.getBoundingClientRect().top) : null })()`
}

// treeDrawn is a script giving the timeline's rounds top to bottom, a
// branch left in brackets with its badge's words after a colon.
const treeDrawn = `[...document.querySelectorAll("#timeline > .round")].map(r => r.classList.contains("off-path") ? "[" + r.dataset.seq + ":" + r.querySelector(".badge.branch").textContent.replace(/.*· /, "") + "]" : r.dataset.seq).join(" ")`

// A pi session that grows while its page is open shows what it grew
// without a reload, as every live session does (issue 46, the tree's
// leftover): the real pi session's first two rounds, then a round on
// the path, then what pi 0.73.1 wrote after /tree back to round 1 (its
// branch summary and a round from there). The new round appears; then
// the new round, and round 2 before it, are marked as the branch left
// and hang from their forks, drawn as a reload draws them; the rounds
// the reader opened stay open with the call opened in them, and the
// block at the top of the window stays where it was.
func TestBrowserLiveBranch(t *testing.T) {
	ctx, s, st, dir, data := piBrowser(t)
	lines := strings.SplitAfter(string(data), "\n")
	if len(lines) < 16 || !strings.Contains(lines[11], `"type":"branch_summary"`) {
		t.Fatalf("%s: line 12 is not the branch summary /tree wrote", piBranched)
	}
	watched := t.TempDir()
	file := filepath.Join(watched, filepath.Base(piBranched))
	appendTo(t, file, lines[:11]...) // rounds 0, 1 and 2
	watch(t, st, s, pi.Format{}, watched)
	waitStored(t, s, piBranchedID, 2)

	Step(t, ctx, "a short window", chromedp.EmulateViewport(1000, 560))
	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+piBranchedID))
	Wait(t, ctx, "its rounds", `document.querySelectorAll("#timeline > .round").length === 3 && document.getElementById("more").textContent.startsWith("all")`)
	// The reader opens rounds 1 and 2 and round 1's call, and reads round
	// 2 with its last block at the top of the window.
	for _, seq := range []string{"1", "2"} {
		Step(t, ctx, "open round "+seq, jsClick(`#timeline > .round[data-seq="`+seq+`"] .toggle`))
		Wait(t, ctx, "round "+seq+"'s steps", `document.querySelector('#timeline > .round[data-seq="`+seq+`"] > .body .step')`)
	}
	call := `#timeline > .round[data-seq="1"] > .body details.call[data-tool="bash"]`
	Step(t, ctx, "open round 1's call", jsClick(call+` > summary`))
	Wait(t, ctx, "the call open", `document.querySelector('`+call+`').open && document.querySelector('`+call+` .call-body')`)
	key := Eval[string](t, ctx, `(() => { const bs = document.querySelectorAll('#timeline > .round[data-seq="2"] > .body [data-line][data-index]'); const b = bs[bs.length - 1]; return '[data-line="' + b.dataset.line + '"][data-index="' + b.dataset.index + '"]' })()`)
	// Room below, so that the block can be scrolled to the window's top
	// whatever the rounds' heights.
	Step(t, ctx, "read round 2", chromedp.Evaluate[chromedp.Void](`document.getElementById("more").style.paddingBottom = "2000px"; window.scrollTo(0, 0); window.scrollBy(0, document.querySelector('#timeline > .round[data-seq="2"] > .body `+key+`').getBoundingClientRect().top - 120)`))
	top := Eval[int](t, ctx, placeOf("2", key))
	t.Logf("round 2's block %s at %d px, the window scrolled %d px", key, top, Eval[int](t, ctx, `Math.round(scrollY)`))
	if top < 100 || top > 140 {
		t.Fatalf("round 2's block at %d px, want 120: the page does not scroll that far", top)
	}
	kept := func(when string) {
		t.Helper()
		for _, seq := range []string{"1", "2"} {
			if !Eval[bool](t, ctx, `!!document.querySelector('#timeline > .round.open[data-seq="`+seq+`"] > .body .step')`) {
				t.Errorf("%s: round %s is no longer open", when, seq)
			}
		}
		if !Eval[bool](t, ctx, `!!(document.querySelector('`+call+`') || {}).open`) {
			t.Errorf("%s: round 1's call is no longer open", when)
		}
		if got := Eval[int](t, ctx, placeOf("2", key)); got < top-2 || got > top+2 {
			t.Errorf("%s: round 2's block moved from %d to %d px", when, top, got)
		}
	}

	// A round on the path.
	start := time.Now()
	appendTo(t, file,
		`{"type":"message","id":"c0ffee01","parentId":"b99f6eb7","timestamp":"2026-11-28T09:33:51.500Z","message":{"role":"user","content":[{"type":"text","text":"`+piReturnedNote+`"}],"timestamp":1795858431500}}`+"\n",
		`{"type":"message","id":"c0ffee02","parentId":"c0ffee01","timestamp":"2026-11-28T09:33:51.600Z","message":{"role":"assistant","content":[{"type":"text","text":"Back on it."}],"api":"anthropic-messages","provider":"fake","model":"fake-model","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795858431600}}`+"\n")
	waitLive(t, ctx, "the new round", `document.querySelector('#timeline > .round[data-seq="3"]') && document.getElementById("session-rounds").textContent === "3 rounds"`)
	t.Logf("the new round on screen %v after the file grew", time.Since(start).Round(time.Millisecond))
	if got := Eval[string](t, ctx, treeDrawn); got != "0 1 2 3" {
		t.Errorf("rounds drawn %q after a round on the path, want 0 1 2 3", got)
	}
	kept("after the new round")

	// A branch left: /tree back to round 1, its summary, a round from
	// there. Rounds 2 and 3 are now the branch left.
	start = time.Now()
	appendTo(t, file, lines[11:16]...)
	waitLive(t, ctx, "the branch left", `document.querySelector('#timeline > .round[data-seq="4"]') && document.querySelector('#timeline > .round.off-path[data-seq="3"]')`)
	t.Logf("the branch left on screen %v after the file grew", time.Since(start).Round(time.Millisecond))
	const want = "0 1 [2:from round 1] [3:from round 2] 4"
	live := Eval[string](t, ctx, treeDrawn)
	if live != want {
		t.Errorf("rounds drawn %q once the branch was left, want %q", live, want)
	}
	kept("after the branch left")
	if n := Eval[int](t, ctx, `document.querySelectorAll("#timeline > .round .badge.branch").length`); n != 2 {
		t.Errorf("%d branch badges, want 2 (each drawn once)", n)
	}
	Screenshot(t, ctx, dir, "pi-branch-live")

	// A reload draws the same.
	Step(t, ctx, "reload", chromedp.Reload())
	Wait(t, ctx, "its rounds", `document.querySelectorAll("#timeline > .round").length === 5 && document.getElementById("more").textContent.startsWith("all")`)
	if got := Eval[string](t, ctx, treeDrawn); got != live {
		t.Errorf("a reload draws %q, the live page drew %q", got, live)
	}
}

// A Claude Code session whose subagent is stored while its page is open
// lists it among its children and shows it in the call that ran it,
// without a reload: the watcher notifies the subagent's session only,
// and the server tells the parent's page too. Sample session B, first
// without its subagent's transcript (the call says it was not
// imported), then with it.
func TestBrowserLiveSubagent(t *testing.T) {
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)

	const id = "5f0c2a1e-8d4b-4c7a-9e31-00000000a9e7"
	const agent = "a85e3082ea2cdf73b"
	child := id + "-agent-" + agent
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join(samples, path))
		if err != nil {
			t.Fatal(err)
		}
		return strings.ReplaceAll(string(b), sessionB, id)
	}
	watched := t.TempDir()
	appendTo(t, filepath.Join(watched, id+".jsonl"), read(sessionB+".jsonl"))
	watch(t, st, s, claudecode.Format{}, watched)
	waitStored(t, s, id, 0)

	Step(t, ctx, "open the session", chromedp.Navigate(s.URL()+"/#/session/"+id))
	Wait(t, ctx, "its rounds", `document.querySelectorAll("#timeline > .round").length > 1 && view.next < 0`)
	seq := evalAwait(t, ctx, `(async () => { for (const r of view.rounds) { const d = await api("GET", "/api/sessions/"+view.id+"/rounds/"+r.seq); if (d.blocks.some(b => b.tool_name === "Agent" && b.kind === "tool-use")) return String(r.seq); } return "" })()`)
	if seq == "" {
		t.Fatal("no round of the session calls Agent")
	}
	round := `#timeline > .round[data-seq="` + seq + `"]`
	Step(t, ctx, "open the round", jsClick(round+` .toggle`))
	Wait(t, ctx, "the Agent call", `document.querySelector('`+round+` details.call[data-tool=Agent]')`)
	Step(t, ctx, "open the call", jsClick(round+` details.call[data-tool=Agent] > summary`))
	Wait(t, ctx, "the subagent said missing", `document.querySelector('`+round+` .subagent-missing')`)
	if n := Eval[int](t, ctx, `document.querySelectorAll("#children li").length`); n != 0 {
		t.Fatalf("%d children before the subagent was stored", n)
	}

	sub := filepath.Join(watched, id, "subagents")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	appendTo(t, filepath.Join(sub, "agent-"+agent+".meta.json"), read(filepath.Join(sessionB, "subagents", "agent-"+agent+".meta.json")))
	start := time.Now()
	appendTo(t, filepath.Join(sub, "agent-"+agent+".jsonl"), read(filepath.Join(sessionB, "subagents", "agent-"+agent+".jsonl")))
	waitLive(t, ctx, "the subagent among the children", `document.querySelector('#children li[data-id="`+child+`"]')`)
	waitLive(t, ctx, "the subagent in its call", `document.querySelector('`+round+` details.call[data-tool=Agent]').open && document.querySelector('`+round+` details.subagent-inline[data-id="`+child+`"]')`)
	t.Logf("the subagent on screen %v after its transcript was written", time.Since(start).Round(time.Millisecond))
	if n := Eval[int](t, ctx, `document.querySelectorAll('`+round+` .subagent-missing').length`); n != 0 {
		t.Errorf("the call still says its subagent was not imported")
	}
	if got := Eval[string](t, ctx, `document.querySelector('`+round+` .subagent-link').getAttribute("href")`); got != "#/session/"+child {
		t.Errorf("the subagent's link %q, want its session", got)
	}
}
