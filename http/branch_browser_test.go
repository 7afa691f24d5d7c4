package http_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/pi"

	"github.com/chromedp/chromedp"
)

// piBranched is a session the real pi 0.73.1 wrote: round 1, round 2
// (write the notes), then /tree back to round 1's end with a branch
// summary and two rounds from there, the path pi resumes.
const (
	piBranched     = "../pi/testdata/0.73.1/2026-11-28T09-34-03-342Z_01a22181-2c48-7378-ab78-4b4f0b2708f3.jsonl"
	piBranchedID   = "01a22181-2c48-7378-ab78-4b4f0b2708f3"
	piReturnedID   = "01a22181-2c48-7378-ab78-4b4f0b27beef"
	piReturnedNote = "back on the notes branch"
)

// piTree is the viewer's tree reader as cmd/cairn passes it.
func piTree(agent string, lines []*cairn.Line) (map[int]bool, map[int]int) {
	if agent != cairn.AgentPi {
		return nil, nil
	}
	return pi.OffPath(lines), pi.Parents(lines)
}

// piBrowser starts the browser and a server that reads pi's trees, and
// reads the real branched session.
func piBrowser(t *testing.T) (context.Context, *cairnhttp.Server, *Store, string, []byte) {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests are not short")
	}
	ctx := MustBrowser(t)
	s, st := MustOpenServer(t)
	s.Tree = piTree
	data, err := os.ReadFile(piBranched)
	if err != nil {
		t.Fatal(err)
	}
	return ctx, s, st, Artifacts(t), data
}

// A pi session's branches left are drawn as a tree (issue 46): each round
// off the path pi resumes is marked, says where it forks, and hangs under
// its fork, so the path reads in order. The real session: round 2, left
// by /tree, forks from round 1. The same session taken back to round 2's
// end (a prompt whose parent is its last entry, as /tree then a prompt
// writes): now the rounds after the branch summary are the ones left,
// drawn under round 1, before round 2 and the round that continues it.
func TestBrowserPiBranches(t *testing.T) {
	ctx, s, st, dir, data := piBrowser(t)
	returned := strings.ReplaceAll(string(data), piBranchedID, piReturnedID) +
		`{"type":"message","id":"c0ffee01","parentId":"b99f6eb7","timestamp":"2026-11-28T09:40:00.000Z","message":{"role":"user","content":[{"type":"text","text":"` + piReturnedNote + `"}],"timestamp":1795858800000}}` + "\n" +
		`{"type":"message","id":"c0ffee02","parentId":"c0ffee01","timestamp":"2026-11-28T09:40:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Back on it."}],"api":"anthropic-messages","provider":"fake","model":"fake-model","usage":{"input":100,"output":20,"cacheRead":0,"cacheWrite":0,"totalTokens":120,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1795858801000}}` + "\n"
	copyDir := t.TempDir()
	copyPath := filepath.Join(copyDir, filepath.Base(strings.ReplaceAll(piBranched, piBranchedID, piReturnedID)))
	if err := os.WriteFile(copyPath, []byte(returned), 0o644); err != nil {
		t.Fatal(err)
	}
	importFiles(t, st, pi.Format{}, piBranched, copyPath)

	for _, c := range []struct {
		id, name string
		order    string // the rows' rounds top to bottom, a branch left in brackets
		badges   map[string]string
	}{
		{piBranchedID, "pi-branch", "0 1 [2] 3 4", map[string]string{"2": "from round 1"}},
		{piReturnedID, "pi-branch-returned", "0 1 [3] [4] 2 5", map[string]string{"3": "from round 1", "4": "from round 3"}},
	} {
		var want struct{ Branches []cairnhttp.Branch }
		MustGet(t, s, "/api/sessions/"+c.id+"/branches", &want)
		t.Logf("%s: %+v", c.name, want.Branches)
		Step(t, ctx, "open "+c.name, chromedp.Navigate(s.URL()+"/#/session/"+c.id))
		Wait(t, ctx, "its rounds", `document.querySelectorAll("#timeline .round").length >= 4 && document.querySelector("#timeline .round.off-path")`)
		Screenshot(t, ctx, dir, c.name)
		order := Eval[string](t, ctx, `[...document.querySelectorAll("#timeline .round")].map(r => r.classList.contains("off-path") ? "[" + r.dataset.seq + "]" : r.dataset.seq).join(" ")`)
		if !strings.HasSuffix(order, strings.TrimPrefix(c.order, "0 ")) {
			t.Errorf("%s: rounds drawn %q, want %q", c.name, order, c.order)
		}
		for seq, says := range c.badges {
			if got := Eval[string](t, ctx, `document.querySelector('#timeline .round[data-seq="`+seq+`"] .badge.branch').textContent`); !strings.Contains(got, says) {
				t.Errorf("%s: round %s's badge %q, want %q", c.name, seq, got, says)
			}
		}
		if n := Eval[int](t, ctx, `document.querySelectorAll("#timeline .round:not(.off-path) .badge.branch").length`); n != 0 {
			t.Errorf("%s: %d rounds of the path marked as branches", c.name, n)
		}
	}
}
