package http_test

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
)

// Stalled is how many connections the floods open, and ServeBudget how
// long a real request may take while they are open.
const (
	Stalled     = 300
	ServeBudget = time.Second
)

// dialFrom opens n connections to addr from the local address from ("":
// any) that never write, and closes them when the test ends.
func dialFrom(tb testing.TB, from, addr string, n int, first string) {
	tb.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	for range n {
		c, err := d.Dial("tcp", addr)
		if err != nil {
			tb.Fatalf("dial %d: %v", n, err)
		}
		if first != "" {
			io.WriteString(c, first)
		}
		tb.Cleanup(func() { c.Close() })
	}
}

// timedGet gets url with token, wants 200, and returns how long it took.
func timedGet(tb testing.TB, url, token string) time.Duration {
	tb.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{}}
	defer client.CloseIdleConnections()
	start := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		tb.Fatalf("GET %s after %v: %v", url, time.Since(start), err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	took := time.Since(start)
	if resp.StatusCode != http.StatusOK {
		tb.Fatalf("GET %s: %d", url, resp.StatusCode)
	}
	return took
}

// TestStalledFlood: 300 connections that never write, on a loopback
// server, do not delay a real request: they only ever push each other out
// of the pending budget. (Before: about 66 s.)
func TestStalledFlood(t *testing.T) {
	s, _ := MustOpenServer(t)
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
	dialFrom(t, "", addr, Stalled, "")
	dialFrom(t, "", addr, Stalled/2, "GET /api/sessions HTTP/1.1\r\nHost: 127.0.0.1\r\n") // a header never ended
	time.Sleep(100 * time.Millisecond)                                                    // all accepted
	var worst time.Duration
	for range 5 {
		worst = max(worst, timedGet(t, s.URL()+"/api/sessions", ""))
	}
	t.Logf("%d stalled connections open: slowest of 5 requests %v", Stalled*3/2, worst)
	if worst > ServeBudget {
		t.Fatalf("a request took %v, want under %v", worst, ServeBudget)
	}
}

// TestUnauthenticatedFlood: on a server reachable from other machines,
// with a token, 300 connections from another address that never send
// the token (silent, a header never ended, or requests without it, again
// and again) never block the token holder. (Before: about 40 s.)
func TestUnauthenticatedFlood(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.Addr, s.Token = "0.0.0.0:0", "tok"
	s.Redact, s.RedactHits = func(v string) string { return v }, func(_ string, h []*cairn.Hit) []*cairn.Hit { return h }
	MustOpen(t, s)
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
	const attacker = "127.0.0.2" // another machine, as the server sees it
	if c, err := (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(attacker)}}).Dial("tcp", addr); err != nil {
		t.Skipf("no loopback address %s here: %v", attacker, err)
	} else {
		c.Close()
	}
	dialFrom(t, attacker, addr, Stalled/3, "")
	dialFrom(t, attacker, addr, Stalled/3, "GET /api/sessions HTTP/1.1\r\nHost: x\r\n")

	// The rest ask without the token as fast as they can.
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var refused atomic.Int64
	tr := &http.Transport{DialContext: (&net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(attacker)}}).DialContext, MaxIdleConnsPerHost: Stalled}
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
			for {
				select {
				case <-stop:
					return
				default:
				}
				if resp, err := client.Get("http://" + addr + "/api/sessions"); err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
					if resp.StatusCode == http.StatusUnauthorized {
						refused.Add(1)
					}
				}
			}
		}()
	}
	defer func() { close(stop); wg.Wait(); tr.CloseIdleConnections() }()
	dialFrom(t, attacker, addr, Stalled/3, "")
	time.Sleep(100 * time.Millisecond)

	var worst time.Duration
	for range 5 {
		worst = max(worst, timedGet(t, "http://"+addr+"/api/sessions", s.Token))
	}
	t.Logf("%d unauthenticated connections and %d refused requests: slowest of 5 token requests %v", Stalled, refused.Load(), worst)
	if worst > ServeBudget {
		t.Fatalf("a token request took %v, want under %v", worst, ServeBudget)
	}
}
