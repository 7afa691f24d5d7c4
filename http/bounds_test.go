package http_test

import (
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

// TestEveryRouteBounded: each route's input whose work grows with it (a
// path's ids, a query's words and length, a page's start, the rounds a
// request names, a body's texts) is capped: past the cap the request is
// answered 400 or 413 at once, saying what; at the cap it is served.
func TestEveryRouteBounded(t *testing.T) {
	s, _ := MustOpenServer(t)
	long := strings.Repeat("x", cairnhttp.MaxParamBytes+1)
	words := func(n int) string { return strings.TrimSpace(strings.Repeat("word ", n)) }
	rounds := func(n int) string {
		var b strings.Builder
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, 1+i%3)
		}
		return b.String()
	}
	var ranges []string
	for range 300 {
		ranges = append(ranges, "1-99999=a")
	}
	id := strings.Repeat("5", cairnhttp.MaxIDBytes+1)
	for _, c := range []struct {
		method, path, body string
		code               int
		says               string
	}{
		{"GET", "/api/sessions/" + id, "", 400, "more than 256"},
		{"GET", "/api/sessions/" + id + "/rounds", "", 400, "more than 256"},
		{"GET", "/api/sessions/" + sessionA + "/rounds/" + id, "", 400, "more than 256"},
		{"GET", "/api/sessions/" + sessionA + "/lines/" + id + "/images/0", "", 400, "more than 256"},
		{"GET", "/api/frames/" + id, "", 400, "more than 256"},
		{"GET", "/api/sessions?project=" + long, "", 400, "Parameter project"},
		{"GET", "/api/sessions?in=" + long, "", 400, "Parameter in"},
		{"GET", "/api/search?q=" + long, "", 400, "Parameter q"},
		{"GET", "/api/search?q=" + url.QueryEscape(words(cairnhttp.MaxQueryWords+1)), "", 400, "at most 32"},
		{"GET", "/api/sessions/" + sessionA + "/rounds/1?fidelity=" + long, "", 400, "Parameter fidelity"},
		{"GET", "/api/sessions/" + sessionA + "/rounds/1?blocks_from=2000000000", "", 400, "blocks_from"},
		{"POST", "/api/sessions/" + sessionA + "/tags", `{"engagement": "x", "rounds": [` + rounds(cairnhttp.MaxRequestRounds+1) + `]}`, 413, "use the CLI"},
		{"POST", "/api/sessions/" + sessionA + "/untag", `{"rounds": [` + rounds(cairnhttp.MaxRequestRounds+1) + `]}`, 413, "use the CLI"},
		{"POST", "/api/sessions/" + sessionA + "/tags", `{"engagement": "` + long + `", "rounds": [1]}`, 400, "Field engagement"},
		{"POST", "/api/tags/suggest", `{"words": "` + words(cairnhttp.MaxQueryWords+1) + `"}`, 400, "at most 32"},
		{"POST", "/api/tags/suggest", `{"words": "` + long + `"}`, 400, "Field words"},
		{"POST", "/api/sessions/" + sessionA + "/split", `{"map": "` + long + `", "preview": true}`, 400, "Field map"},
		{"POST", "/api/sessions/" + sessionA + "/split", `{"map": "` + strings.Join(ranges, ",") + `", "preview": true}`, 400, "rounds named in all"},
		{"POST", "/api/sessions/" + sessionA + "/extract", `{"engagement": "` + long + `", "preview": true}`, 400, "Field engagement"},
		{"POST", "/api/sessions/" + sessionA + "/revive", `{"before": "` + long + `", "preview": true}`, 400, "Field before"},

		// A body is decoded once, its caps checked on what the handler
		// reads: bytes after the value no longer let a body past them
		// (a second decode refused it while the handler read the first
		// value alone and served it).
		{"POST", "/api/tags/suggest", `{"words": "` + words(cairnhttp.MaxQueryWords+1) + `"} x`, 400, ""},
		{"POST", "/api/sessions/" + sessionA + "/tags", `{"engagement": "x", "rounds": [` + rounds(cairnhttp.MaxRequestRounds+1) + `]} x`, 400, "more than one JSON value"},
		{"POST", "/api/sessions/" + sessionA + "/tags", `{"engagement": "x", "rounds": [` + rounds(cairnhttp.MaxRequestRounds+1) + `]}` + "\n", 413, "use the CLI"},
		{"POST", "/api/tags/suggest", `{"words": "` + strings.Repeat("x", cairnhttp.MaxBodyBytes) + `"}`, 413, "body is more than"},

		// At the caps: served.
		{"GET", "/api/search?q=" + url.QueryEscape(words(cairnhttp.MaxQueryWords)), "", 200, ""},
		{"POST", "/api/tags/suggest", `{"words": "` + words(cairnhttp.MaxQueryWords) + `"}`, 200, ""},
		{"POST", "/api/sessions/" + sessionA + "/tags", `{"engagement": "x", "rounds": [` + rounds(100) + `]}`, 200, ""},
	} {
		start := time.Now()
		code, body := Do(t, s, c.method, c.path, c.body)
		took := time.Since(start)
		bound := time.Second // refused at once
		if c.code == 200 {
			bound = 5 * time.Second // served
		}
		if code != c.code || !strings.Contains(body, c.says) || took > bound*Slack() {
			t.Errorf("%s %.80s: %d in %v, %.200s; want %d saying %q at once", c.method, c.path, code, took, body, c.code, c.says)
		}
	}
}

// TestEventStreamsBounded: event streams beyond MaxEventStreams close the
// oldest, so that pages left open never take every connection: with 64
// streams open (MaxConns), a request is served. Before, it was answered
// 503 while they stayed open.
func TestEventStreamsBounded(t *testing.T) {
	s, _ := MustOpenServer(t)
	var closed atomic.Int32
	for range cairnhttp.DefaultMaxConns {
		client := &http.Client{Transport: &http.Transport{}}
		resp, err := client.Get(s.URL() + "/api/events")
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close(); client.CloseIdleConnections() })
		go func() {
			io.Copy(io.Discard, resp.Body)
			closed.Add(1)
		}()
	}
	for deadline := time.Now().Add(5 * time.Second); closed.Load() < int32(cairnhttp.DefaultMaxConns-cairnhttp.MaxEventStreams) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	code, body := Do(t, s, "GET", "/api/sessions", "")
	t.Logf("%d streams opened, %d closed; then GET /api/sessions: %d", cairnhttp.DefaultMaxConns, closed.Load(), code)
	if code != 200 {
		t.Errorf("with %d streams opened: %d %.100s", cairnhttp.DefaultMaxConns, code, body)
	}
	if n := closed.Load(); n != int32(cairnhttp.DefaultMaxConns-cairnhttp.MaxEventStreams) {
		t.Errorf("%d streams closed, want %d", n, cairnhttp.DefaultMaxConns-cairnhttp.MaxEventStreams)
	}
}
