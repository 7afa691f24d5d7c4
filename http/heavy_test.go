package http_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	cairnhttp "cairn/http"
	"cairn/retention"
)

// TestSessionTooLarge: retention and surgery refuse a session of more
// blocks than MaxSessionBlocks with 413 and a sentence naming the CLI,
// before any work on it; within the cap they are served.
func TestSessionTooLarge(t *testing.T) {
	st := MustOpenStore(t)
	measured := 0
	open := func(max int) *cairnhttp.Server {
		s := cairnhttp.NewServer()
		st.Serve(s)
		s.Retention = func(context.Context, string) (*retention.Report, error) {
			measured++
			return &retention.Report{}, nil
		}
		s.MaxSessionBlocks = max
		MustOpen(t, s)
		return s
	}
	s := open(5)
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/api/sessions/" + sessionA + "/retention", ""},
		{"POST", "/api/sessions/" + sessionA + "/revive", `{"before": "3", "preview": true}`},
		{"POST", "/api/sessions/" + sessionA + "/extract", `{"engagement": "x", "preview": true}`},
	} {
		code, body := Do(t, s, c.method, c.path, c.body)
		if code != http.StatusRequestEntityTooLarge || !strings.Contains(body, "more than 5 blocks") || !strings.Contains(body, "use the CLI") {
			t.Errorf("%s %s: %d %s, want 413 saying to use the CLI", c.method, c.path, code, body)
		}
	}
	if measured != 0 {
		t.Errorf("retention measured %d times a session over the cap", measured)
	}
	s = open(cairnhttp.DefaultMaxSessionBlocks)
	if code, body := Do(t, s, "GET", "/api/sessions/"+sessionA+"/retention", ""); code != 200 || measured != 1 {
		t.Errorf("within the cap: %d %s, measured %d times", code, body, measured)
	}
	if code, body := Do(t, s, "POST", "/api/sessions/"+sessionA+"/revive", `{"before": "3", "preview": true}`); code != 200 {
		t.Errorf("revive preview within the cap: %d %s", code, body)
	}
}

// TestHugeSessionRefused: a revive's preview of a session with a message
// of a million blocks is refused at once, within a page's heap, instead
// of reading every block (before: 23.2 s and 1.38 GB; retention 93.5 s
// and 1.97 GB).
func TestHugeSessionRefused(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("imports a round of a million blocks; timings mean nothing under -race")
	}
	s, st := MustOpenServer(t)
	id := mustHugeRound(t, st, HugeBlocks)
	stop := heapPeak()
	start := time.Now()
	code, body := Do(t, s, "POST", "/api/sessions/"+id+"/revive", `{"before": "2", "preview": true}`)
	took, heap := time.Since(start), stop()
	t.Logf("revive preview of a million-block session: %d in %v, heap +%.1f MB: %s", code, took.Round(time.Millisecond), float64(heap)/(1<<20), strings.TrimSpace(body))
	if code != http.StatusRequestEntityTooLarge || took > HugePageBudget || heap > HugeHeapCeiling {
		t.Fatalf("%d in %v and %d MB, want 413 within %v and %d MB", code, took, heap>>20, HugePageBudget, HugeHeapCeiling>>20)
	}
}
