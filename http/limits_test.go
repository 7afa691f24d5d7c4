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

	cairnhttp "cairn/http"
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
		if len(page.Round.Blocks) > cairnhttp.MaxPageBlocks || page.BlocksFrom != from {
			t.Fatalf("page %d: %d blocks from %d", pages, len(page.Round.Blocks), page.BlocksFrom)
		}
		for i, b := range page.Round.Blocks {
			if want := fmt.Sprintf("block %d", from+i-1); from+i > 0 && b.Content != want {
				t.Fatalf("block %d = %q, want %q", from+i, b.Content, want)
			}
		}
		seen += len(page.Round.Blocks)
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

	// Two silent connections take the cap; a third request waits for one
	// of them to go. The listener accepts in the order connections
	// arrived, so the third is behind them without waiting here.
	a, _ := net.Dial("tcp", addr)
	b, _ := net.Dial("tcp", addr)
	defer b.Close()
	client := &http.Client{Timeout: 150 * time.Millisecond}
	if _, err := client.Get(s.URL() + "/api/sessions"); err == nil {
		t.Fatal("a request beyond the cap was served at once")
	}
	a.Close()
	client.Timeout = StateDeadline
	resp, err := client.Get(s.URL() + "/api/sessions")
	if err != nil {
		t.Fatalf("after a connection closed: %v", err)
	}
	defer resp.Body.Close()
	var v any
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&v) != nil {
		t.Fatalf("status %d", resp.StatusCode)
	}
}
