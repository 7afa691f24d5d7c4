package http_test

import (
	"context"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/retention"
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

// TestHeavyFlood: 32 clients asking for heavy routes (retention, a
// revive's preview) as fast as they can are each answered within a bound,
// served or 503 with a Retry-After in seconds, never queued without end;
// meanwhile the session list and a round's page stay fast. Before, every
// heavy request waited its turn (a round's page too, behind retention).
func TestHeavyFlood(t *testing.T) {
	const (
		clients = 32
		work    = 300 * time.Millisecond // what a measure takes
	)
	floodFor := 3 * time.Second
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Retention = func(ctx context.Context, _ string) (*retention.Report, error) {
		select {
		case <-time.After(work):
		case <-ctx.Done():
		}
		return &retention.Report{}, nil
	}
	MustOpen(t, s)
	light := []string{"/api/sessions", "/api/sessions/" + sessionA + "/rounds/1"}
	probe := func(until time.Time) map[string][]time.Duration {
		took := map[string][]time.Duration{}
		for time.Now().Before(until) || len(took[light[0]]) < 5 {
			for _, path := range light {
				took[path] = append(took[path], timedGet(t, s.URL()+path, ""))
			}
		}
		return took
	}
	quiet := probe(time.Now().Add(500 * time.Millisecond))

	answers := make([][]answer, clients)
	var wg sync.WaitGroup
	end := time.Now().Add(floodFor)
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{}}
			defer client.CloseIdleConnections()
			for time.Now().Before(end) {
				req, _ := http.NewRequest(http.MethodGet, s.URL()+"/api/sessions/"+sessionA+"/retention", nil)
				if i%4 == 0 {
					req, _ = http.NewRequest(http.MethodPost, s.URL()+"/api/sessions/"+sessionA+"/revive", strings.NewReader(`{"before": "3", "preview": true}`))
					req.Header.Set(cairnhttp.CSRFHeader, "1")
				}
				a := ask(t, client, req)
				answers[i] = append(answers[i], a)
				if a.code == 0 {
					return
				}
				if a.code != http.StatusOK {
					time.Sleep(20 * time.Millisecond) // at once again, but leaving the 2 cores to the server
				}
			}
		}()
	}
	time.Sleep(100 * time.Millisecond)
	flood := probe(end)
	wg.Wait()

	bound := (cairnhttp.DefaultHeavyWait + 2*work + time.Second) * Slack()
	served, refused, slowest := 0, 0, time.Duration(0)
	retries := map[string]int{}
	for _, list := range answers {
		for _, a := range list {
			slowest = max(slowest, a.took)
			switch n, err := strconv.Atoi(a.retry); {
			case a.code == http.StatusOK:
				served++
			case a.code == http.StatusServiceUnavailable && err == nil && n >= 1 && n <= 300:
				refused++
				retries[a.retry]++
			default:
				t.Errorf("an answer %d with Retry-After %q, want 200, or 503 with seconds", a.code, a.retry)
			}
			if a.took > bound {
				t.Errorf("an answer %d after %v, want within %v", a.code, a.took, bound)
			}
		}
	}
	t.Logf("%d clients for %v: %d served, %d refused (Retry-After: %v), slowest answer %v", clients, floodFor, served, refused, retries, slowest.Round(time.Millisecond))
	for _, path := range light {
		t.Logf("%s: p50 %v p99 %v quiet, p50 %v p99 %v under the flood (%d requests)", path,
			percentile(quiet[path], 50), percentile(quiet[path], 99), percentile(flood[path], 50), percentile(flood[path], 99), len(flood[path]))
		if p := percentile(flood[path], 99); p > ServeBudget*Slack() {
			t.Errorf("%s under the flood: p99 %v, want under %v", path, p, ServeBudget*Slack())
		}
	}
	if served == 0 || refused == 0 {
		t.Errorf("%d served, %d refused: want both", served, refused)
	}
}

// An answer is a response's status, Retry-After and time.
type answer struct {
	code  int
	retry string
	took  time.Duration
}

// ask sends req with client and returns its answer, code 0 when it could
// not be sent (the test failed).
func ask(t *testing.T, client *http.Client, req *http.Request) answer {
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return answer{}
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return answer{resp.StatusCode, resp.Header.Get("Retry-After"), time.Since(start)}
}

// percentile returns the p'th percentile of ds.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)].Round(time.Millisecond)
}

// TestHeavyQueue: with the heavy slot taken, at most HeavyQueue requests
// wait for it, and they are served once it frees; one more is refused at
// once. Once a request has taken longer than HeavyWait on average, one
// that finds the slot taken is refused at once, its Retry-After the
// seconds the running one likely has left.
func TestHeavyQueue(t *testing.T) {
	st := MustOpenStore(t)
	release := make(chan struct{})
	var work time.Duration
	var s *cairnhttp.Server
	open := func(wait time.Duration) {
		s = cairnhttp.NewServer()
		st.Serve(s)
		s.Retention = func(ctx context.Context, _ string) (*retention.Report, error) {
			if work > 0 {
				time.Sleep(work)
			} else {
				<-release
			}
			return &retention.Report{}, nil
		}
		s.MaxHeavy, s.HeavyQueue, s.HeavyWait = 1, 2, wait
		MustOpen(t, s)
	}
	open(30 * time.Second)
	path := "/api/sessions/" + sessionA + "/retention"
	get := func() answer {
		req, _ := http.NewRequest(http.MethodGet, s.URL()+path, nil)
		return ask(t, &http.Client{Transport: &http.Transport{}}, req)
	}
	got := make(chan answer, 3)
	for range 3 { // one served, two waiting
		go func() { got <- get() }()
		time.Sleep(100 * time.Millisecond)
	}
	if a := get(); a.code != http.StatusServiceUnavailable || a.retry == "" || a.took > time.Second*Slack() {
		t.Errorf("a request beyond the queue: %d, Retry-After %q, after %v; want 503 with Retry-After at once", a.code, a.retry, a.took)
	}
	close(release)
	for range 3 {
		if a := <-got; a.code != http.StatusOK {
			t.Errorf("a request in the queue: %d, want 200", a.code)
		}
	}

	// A request that takes 1.6 s on average, with a wait of 200 ms.
	work = 1600 * time.Millisecond
	open(200 * time.Millisecond)
	if a := get(); a.code != http.StatusOK {
		t.Fatalf("alone: %d", a.code)
	}
	go func() { got <- get() }()
	time.Sleep(100 * time.Millisecond)
	a := get()
	t.Logf("with a request of 1.6 s running for 0.1 s: %d in %v, Retry-After %s", a.code, a.took.Round(time.Millisecond), a.retry)
	if a.code != http.StatusServiceUnavailable || a.retry != "2" || a.took > 150*time.Millisecond*Slack() {
		t.Errorf("%d, Retry-After %q, after %v; want 503 at once, Retry-After 2", a.code, a.retry, a.took)
	}
	<-got
}
