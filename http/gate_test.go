package http_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

// probe sends n requests at once, each on a connection of its own, and
// returns how many were answered 200, with the other outcomes counted.
func probe(t *testing.T, s *cairnhttp.Server, n int) (int, map[string]int) {
	t.Helper()
	var (
		mu    sync.Mutex
		ok    int
		other = map[string]int{}
		wg    sync.WaitGroup
		start = make(chan struct{})
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{DisableKeepAlives: true}}
			<-start
			resp, err := c.Get(s.URL() + "/api/sessions")
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				other[err.Error()]++
				return
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == 200 {
				ok++
			} else {
				other[fmt.Sprint(resp.StatusCode)]++
			}
		}()
	}
	close(start)
	wg.Wait()
	return ok, other
}

// TestStalledTrustedConnections: trusted connections that stall (a body
// that stops, a kept-alive connection left idle, a refused POST whose body
// the server drains) lose their slots to requests that need them, whatever
// they sent before: with MaxConns of them stalled, every probe is served.
func TestStalledTrustedConnections(t *testing.T) {
	kinds := []struct {
		name, request string
		answered      bool
	}{
		{"slow body", "POST /api/tags/suggest HTTP/1.1\r\nHost: %s\r\nX-Cairn: 1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", false},
		{"idle keep-alive", "GET /api/sessions HTTP/1.1\r\nHost: %s\r\n\r\n", true},
		{"refused POST", "POST /api/tags/suggest HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", false},
	}
	stall := cairnhttp.DefaultStallTimeout
	st := MustOpenStore(t)
	for _, k := range kinds {
		t.Run(k.name, func(t *testing.T) {
			s := cairnhttp.NewServer()
			st.Serve(s)
			MustOpen(t, s)
			addr := fmt.Sprintf("127.0.0.1:%d", s.Port())
			for range cairnhttp.DefaultMaxConns {
				c, err := net.Dial("tcp", addr)
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				fmt.Fprintf(c, k.request, addr)
				if k.answered { // stalled from its answer on
					resp, err := http.ReadResponse(bufio.NewReader(c), nil)
					if err != nil {
						t.Fatal(err)
					}
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				} else {
					go io.Copy(io.Discard, c)
				}
			}
			time.Sleep(stall + time.Second)
			ok, other := probe(t, s, 60)
			t.Logf("%d of 60 probes answered, others %v", ok, other)
			if ok != 60 {
				t.Fatalf("%d of 60 probes answered with %d connections stalled (%s), others %v", ok, cairnhttp.DefaultMaxConns, k.name, other)
			}
		})
	}
}

// TestBurstFromOneAddress: 50 requests at once from one program, all on
// loopback's one address, are all served: pending connections beyond the
// per-address budget wait their turn instead of resetting each other.
func TestBurstFromOneAddress(t *testing.T) {
	s, _ := MustOpenServer(t)
	ok, other := probe(t, s, 50)
	t.Logf("%d of 50 answered, others %v", ok, other)
	if ok != 50 {
		t.Fatalf("%d of 50 concurrent requests answered, others %v", ok, other)
	}
}
