package http

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"
)

// EventKeepAlive is how often an idle event stream sends a comment, so
// proxies and browsers keep it open.
const EventKeepAlive = 15 * time.Second

// An Event tells open pages that sessions changed: new lines, new rounds.
type Event struct {
	Sessions []string `json:"sessions"`
}

// RunningFor is how long after its transcript last grew a session counts
// as running: an agent at work writes a line every few seconds.
const RunningFor = 2 * time.Minute

// events fans events out to the open event streams, and remembers when
// each session last changed.
type events struct {
	mu      sync.Mutex
	streams map[chan *Event]struct{}
	closed  chan struct{}
	changed map[string]time.Time
}

func (s *Server) registerEventRoutes() {
	s.mux.HandleFunc("GET /api/events", s.handleEvents)
}

// Notify tells every open page that the sessions ids changed (cairn serve
// --watch calls it after each import), and the parent of each subagent
// among them, whose page lists its subagents and shows each in place (the
// ids alone are running). A page too slow to take an event misses it
// rather than slowing the others.
func (s *Server) Notify(ids ...string) {
	if len(ids) == 0 {
		return
	}
	ev := &Event{Sessions: s.withParents(ids)}
	now := time.Now()
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	if s.events.changed == nil {
		s.events.changed = map[string]time.Time{}
	}
	for id, at := range s.events.changed {
		if now.Sub(at) > RunningFor {
			delete(s.events.changed, id)
		}
	}
	for _, id := range ids {
		s.events.changed[id] = now
	}
	for c := range s.events.streams {
		select {
		case c <- ev:
		default:
		}
	}
}

// ParentLookup bounds how long Notify looks a changed session's parent
// up for.
const ParentLookup = time.Second

// withParents returns ids and the parents of the subagents among them.
func (s *Server) withParents(ids []string) []string {
	if s.Sessions == nil {
		return ids
	}
	ctx, cancel := context.WithTimeout(context.Background(), ParentLookup)
	defer cancel()
	out := slices.Clip(ids)
	for _, id := range ids {
		sess, err := s.Sessions.FindSessionByID(ctx, id)
		if err == nil && sess.IsSubagent() && sess.Parent != "" && !slices.Contains(out, sess.Parent) {
			out = append(out, sess.Parent)
		}
	}
	return out
}

// Running reports whether the session id is running: Notify named it
// within RunningFor (so only under cairn serve --watch).
func (s *Server) Running(id string) bool {
	s.events.mu.Lock()
	defer s.events.mu.Unlock()
	at, ok := s.events.changed[id]
	return ok && time.Since(at) <= RunningFor
}

// markRunning sets Running on rows and their children.
func (s *Server) markRunning(rows []*SessionRow) {
	for _, r := range rows {
		r.Running = s.Running(r.ID)
		s.markRunning(r.Children)
	}
}

// handleEvents handles GET /api/events: server-sent events, one "data:"
// line of [Event] JSON per change, until the page or the server goes.
func (s *Server) handleEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		writeJSON(w, http.StatusInternalServerError, &ErrorResponse{Error: "Streaming unsupported."})
		return
	}
	c := make(chan *Event, 16)
	s.events.mu.Lock()
	if s.events.streams == nil {
		s.events.streams = map[chan *Event]struct{}{}
	}
	s.events.streams[c] = struct{}{}
	s.events.mu.Unlock()
	defer func() {
		s.events.mu.Lock()
		delete(s.events.streams, c)
		s.events.mu.Unlock()
	}()

	// The stream outlives the server's write timeout, which is for
	// ordinary responses.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, "retry: 1000\n: connected\n\n")
	flusher.Flush()
	tick := time.NewTicker(EventKeepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.events.closed:
			return
		case <-tick.C:
			fmt.Fprint(w, ": keep-alive\n\n")
		case ev := <-c:
			data, _ := json.Marshal(ev)
			fmt.Fprintf(w, "data: %s\n\n", data)
		}
		flusher.Flush()
	}
}
