package http

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// DefaultMaxSessionBlocks is how many blocks a session may have for the
// viewer to measure its retention or cut it (split, extract, revive):
// those read every block of it at once, which a session with a message of
// a million blocks made take 93.5 s and 1.97 GB (retention) and 23.2 s
// and 1.38 GB (a revive's preview). The CLI does it without the bound.
const DefaultMaxSessionBlocks = 200_000

// tooLarge answers 413 and reports true when session id has more than
// [Server.MaxSessionBlocks] blocks, counted a round at a time from each
// round's first page (one block), so that a session too large costs no
// more to refuse than a page of each round.
func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request, what, command string) bool {
	if s.MaxSessionBlocks <= 0 {
		return false
	}
	n, err := s.countBlocks(r.Context(), r.PathValue("id"), s.MaxSessionBlocks)
	if err != nil {
		Error(w, r, err)
		return true
	}
	if n <= s.MaxSessionBlocks {
		return false
	}
	writeJSON(w, http.StatusRequestEntityTooLarge, &ErrorResponse{Error: fmt.Sprintf(
		"This session has more than %d blocks, more than the viewer %s at once: use the CLI, %s.", s.MaxSessionBlocks, what, command)})
	return true
}

// countBlocks counts the blocks of a session's rounds, stopping once past
// limit.
func (s *Server) countBlocks(ctx context.Context, id string, limit int) (int, error) {
	sess, err := s.Sessions.FindSessionByID(ctx, id)
	if err != nil {
		return 0, err
	}
	rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rd := range rounds {
		_, total, err := s.Rounds.FindRoundPage(ctx, sess.ID, rd.Seq, cairn.BlockPage{Limit: 1, Bytes: 1})
		if err != nil {
			return 0, err
		}
		if n += total; n > limit {
			break
		}
	}
	return n, nil
}

// Defaults of the heavy pools: how many requests may wait for a slot,
// and how long one waits before it is answered 503.
const (
	DefaultHeavyQueue = 8
	DefaultHeavyWait  = 5 * time.Second
	maxRetryAfter     = 5 * time.Minute
)

// A pool bounds the requests of a class of heavy routes: at most its
// slots are served at once, at most queue wait for one, each at most
// wait; any other is refused at once, with when to retry.
type pool struct {
	slots chan struct{}
	queue int
	wait  time.Duration

	mu      sync.Mutex
	waiting int
	running map[*time.Time]struct{} // when each request served began
	took    time.Duration           // how long a request took, on average (exponentially weighted); 0 before the first
}

func newPool(slots, queue int, wait time.Duration) *pool {
	return &pool{slots: make(chan struct{}, slots), queue: queue, wait: wait, running: map[*time.Time]struct{}{}}
}

// acquire takes a slot, waiting for one only when fewer than p.queue wait
// and one is likely to free within p.wait, and at most that long. It
// returns the func that gives the slot back, or, refused, nil and how
// long until a slot is likely to be free (0: ctx ended).
func (p *pool) acquire(ctx context.Context) (func(), time.Duration) {
	select {
	case p.slots <- struct{}{}:
		return p.begin(), 0
	default:
	}
	p.mu.Lock()
	if eta := p.eta(time.Now()); p.waiting >= p.queue || eta > p.wait {
		p.mu.Unlock()
		return nil, eta
	}
	p.waiting++
	p.mu.Unlock()
	t := time.NewTimer(p.wait)
	defer t.Stop()
	var eta time.Duration
	select {
	case p.slots <- struct{}{}:
	case <-t.C:
		p.mu.Lock()
		eta = p.eta(time.Now())
		p.mu.Unlock()
	case <-ctx.Done():
	}
	p.mu.Lock()
	p.waiting--
	p.mu.Unlock()
	if eta > 0 || ctx.Err() != nil {
		return nil, eta
	}
	return p.begin(), 0
}

// begin records a request served from now, and returns what ends it.
func (p *pool) begin() func() {
	start := time.Now()
	p.mu.Lock()
	p.running[&start] = struct{}{}
	p.mu.Unlock()
	return func() {
		took := time.Since(start)
		p.mu.Lock()
		delete(p.running, &start)
		if p.took == 0 {
			p.took = took
		} else {
			p.took = (3*p.took + took) / 4
		}
		p.mu.Unlock()
		<-p.slots
	}
}

// eta is how long until a request arriving now would likely be served,
// from the work running: the soonest a running request ends (each is
// taken to last as long as the average, or, before any ended, twice what
// it has run), then the average again for each one waiting, shared by the
// slots. It is at least a millisecond. p.mu is held.
func (p *pool) eta(now time.Time) time.Duration {
	soonest := time.Duration(-1)
	each := p.took
	for start := range p.running {
		ran := now.Sub(*start)
		left := max(p.took-ran, 0)
		if p.took == 0 {
			left, each = ran, max(each, ran)
		}
		if soonest < 0 || left < soonest {
			soonest = left
		}
	}
	eta := max(soonest, 0) + each*time.Duration(p.waiting)/time.Duration(cap(p.slots))
	return min(max(eta, time.Millisecond), maxRetryAfter)
}

// busy answers 503 for a request a pool refused, with Retry-After in whole
// seconds, at least one, from eta.
func busy(w http.ResponseWriter, eta time.Duration) {
	secs := int((eta + time.Second - 1) / time.Second)
	w.Header().Set("Retry-After", strconv.Itoa(max(secs, 1)))
	writeJSON(w, http.StatusServiceUnavailable, &ErrorResponse{Error: fmt.Sprintf(
		"The viewer is busy with other heavy requests: try again in %d s.", max(secs, 1))})
}
