package http_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

// TestRoundBlocksPaged: a round of many blocks comes a page at a time,
// each page within the block and byte caps, all pages together every
// block once.
func TestRoundBlocksPaged(t *testing.T) {
	s, st := MustOpenServer(t)
	id := "0b1e0000-0000-4000-8000-0000000b10c5"
	n := 2*cairnhttp.MaxPageBlocks + 500
	var blocks []string
	for i := range n {
		blocks = append(blocks, fmt.Sprintf(`{"type":"text","text":"block %d"}`, i))
	}
	data := fmt.Sprintf(`{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"go"},"uuid":"00000000-0000-4000-8000-000000000001","timestamp":"2026-03-19T10:00:00.000Z","sessionId":%q,"cwd":"/w"}`+"\n"+
		`{"parentUuid":"00000000-0000-4000-8000-000000000001","isSidechain":false,"type":"assistant","message":{"id":"msg_1","role":"assistant","content":[%s]},"uuid":"00000000-0000-4000-8000-000000000002","timestamp":"2026-03-19T10:00:01.000Z","sessionId":%q,"cwd":"/w"}`+"\n",
		id, strings.Join(blocks, ","), id)
	path := filepath.Join(t.TempDir(), id+".jsonl")
	os.WriteFile(path, []byte(data), 0o644)
	if fr, _ := st.importer.ImportFile(context.Background(), path); fr.Error != "" {
		t.Fatal(fr.Error)
	}
	seen, from, pages := 0, 0, 0
	for {
		var page cairnhttp.RoundResponse
		MustGet(t, s, fmt.Sprintf("/api/sessions/%s/rounds/1?blocks_from=%d", id, from), &page)
		pages++
		if len(page.Blocks) > cairnhttp.MaxPageBlocks || page.BlocksFrom != from {
			t.Fatalf("page %d: %d blocks from %d", pages, len(page.Blocks), page.BlocksFrom)
		}
		for i, b := range page.Blocks {
			if want := fmt.Sprintf("block %d", from+i-1); from+i > 0 && b.Content != want {
				t.Fatalf("block %d = %q, want %q", from+i, b.Content, want)
			}
		}
		seen += len(page.Blocks)
		if page.NextBlocks == 0 {
			if page.BlocksTotal != n+1 || seen != n+1 {
				t.Fatalf("%d blocks seen of %d, want %d", seen, page.BlocksTotal, n+1)
			}
			break
		}
		from = page.NextBlocks
	}
	if pages != 3 {
		t.Fatalf("%d pages", pages)
	}
}

// TestStalledClients: a request body that stalls is cut off after the
// read timeout, and connections beyond the cap wait instead of exhausting
// descriptors.
func TestStalledClients(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	// The read timeout is also how long the two silent connections below
	// hold the cap, the window in which the third request must not be
	// served: at 300 ms a test goroutine the machine kept waiting that long
	// saw it served.
	s.ReadTimeout, s.MaxConns = time.Second, 2
	MustOpen(t, s)
	addr := fmt.Sprintf("127.0.0.1:%d", s.Port())

	stalled, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer stalled.Close()
	fmt.Fprintf(stalled, "POST /api/tags HTTP/1.1\r\nHost: %s\r\nContent-Length: 1000\r\nX-Cairn: 1\r\n\r\n{", addr)
	bound := 3 * time.Second * Slack()
	stalled.SetReadDeadline(time.Now().Add(bound + time.Second))
	start := time.Now()
	io.ReadAll(stalled) // returns when the server closes the connection
	if took := time.Since(start); took > bound {
		t.Fatalf("a stalled body held its connection %v (read timeout %v)", took, s.ReadTimeout)
	}

	// Two silent connections fill the pending budget; a request on a third
	// is served at once, and the oldest silent one is closed for it (once
	// silent for a while: one just accepted may be about to send).
	s.Close()
	s = cairnhttp.NewServer()
	st.Serve(s)
	s.MaxPending, s.PendingPerIP = 2, 2
	MustOpen(t, s)
	addr = fmt.Sprintf("127.0.0.1:%d", s.Port())
	a, _ := net.Dial("tcp", addr)
	defer a.Close()
	time.Sleep(20 * time.Millisecond) // accepted first
	b, _ := net.Dial("tcp", addr)
	defer b.Close()
	time.Sleep(200 * time.Millisecond)
	client := &http.Client{Timeout: time.Second * Slack()}
	resp, err := client.Get(s.URL() + "/api/sessions")
	if err != nil {
		t.Fatalf("a request beyond the pending budget: %v", err)
	}
	defer resp.Body.Close()
	var v any
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&v) != nil {
		t.Fatalf("status %d", resp.StatusCode)
	}
	a.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := a.Read(make([]byte, 1)); err != io.EOF {
		t.Fatalf("the oldest silent connection: %v, want it closed", err)
	}
}

// TestTrustedCap: trusted connections beyond MaxConns are answered 503
// and closed; one closing makes room.
func TestTrustedCap(t *testing.T) {
	st := MustOpenStore(t)
	s := cairnhttp.NewServer()
	st.Serve(s)
	s.MaxConns = 1
	MustOpen(t, s)
	one := &http.Client{Transport: &http.Transport{}}
	two := &http.Client{Transport: &http.Transport{}}
	get := func(c *http.Client) int {
		resp, err := c.Get(s.URL() + "/api/sessions")
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := get(one); got != 200 {
		t.Fatalf("first: %d", got)
	}
	if got := get(two); got != http.StatusServiceUnavailable {
		t.Fatalf("second, while the first is kept alive: %d, want 503", got)
	}
	// The server frees the first's slot once it sees the close, which a
	// busy machine may take a while to deliver: wait for that, not for a
	// time.
	one.CloseIdleConnections()
	got := 0
	for deadline := time.Now().Add(10 * time.Second); got != 200 && time.Now().Before(deadline); {
		two.CloseIdleConnections()
		if got = get(two); got != 200 {
			time.Sleep(10 * time.Millisecond)
		}
	}
	if got != 200 {
		t.Fatalf("second, the first closed: %d for 10 s", got)
	}
}
