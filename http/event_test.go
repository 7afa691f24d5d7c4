package http_test

import (
	"bufio"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	cairnhttp "github.com/cairn-dev/cairn/http"
)

// A subagent that changed is news to its parent's page too, which lists
// it and shows it in place: the event names both, while only the
// subagent counts as running (TestSessionsRunning).
func TestNotifyNamesParent(t *testing.T) {
	s, _ := MustOpenServer(t)
	client := &http.Client{Transport: &http.Transport{}}
	resp, err := client.Get(s.URL() + "/api/events")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close(); client.CloseIdleConnections() })
	events := make(chan cairnhttp.Event, 4)
	go func() {
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				var ev cairnhttp.Event
				if json.Unmarshal([]byte(data), &ev) == nil {
					events <- ev
				}
			}
		}
	}()
	// The stream is open once the server counts it: notify until an
	// event arrives.
	for deadline := time.Now().Add(5 * time.Second); ; {
		s.Notify(subagentB, sessionA)
		select {
		case ev := <-events:
			slices.Sort(ev.Sessions)
			if want := []string{sessionA, sessionB, subagentB}; !slices.Equal(ev.Sessions, want) {
				t.Fatalf("event names %v, want %v", ev.Sessions, want)
			}
			return
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no event in 5 s")
		}
	}
}
