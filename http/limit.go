package http

import (
	"context"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Connection limits. A connection is pending from its accept until a
// request on it is authorized (carries the token, or, without one, is
// addressed to this machine); then it is trusted until it closes.
//
// Pending connections never wait long to be accepted: when MaxPending of
// them are open, or PendingPerIP from the new one's address, the oldest
// pending connection of the address with the most that waits on its
// client (the server reads its request and nothing came for
// pendingQuiet) is closed to make room. None may, since one just accepted
// or not yet read may hold a whole request: the new one is then let in
// beyond the budget, up to hardCap times it, and past that waits in the
// listen backlog until one does, at most pendingWait. Stalled or
// unauthenticated clients so only ever drop each other, a client that
// sends its token is served however many of them there are, and a burst
// of requests from one program (on loopback every client is one address)
// is served whole.
//
// A trusted connection keeps its slot while it is useful: a request on it
// that finds MaxConns trusted takes the slot of one that has been stalled
// for StallTimeout (idle between requests, or its handler waiting on its
// body or on the client reading its response, or its body drained after
// a refusal), whatever it sent before.
const (
	DefaultMaxPending   = 64
	DefaultPendingPerIP = 16
	DefaultStallTimeout = 3 * time.Second
	pendingWait         = time.Second
	pendingQuiet        = 50 * time.Millisecond
	hardCap             = 4
)

// A gate is a listener that keeps pending connections within their budget
// by closing the oldest, and trusted ones within theirs by closing stalled
// ones, else refusing more.
type gate struct {
	net.Listener
	maxPending, perIP, maxTrusted int
	stall                         time.Duration

	freed chan struct{} // a pending slot may have freed

	mu       sync.Mutex
	pending  map[string][]*gatedConn // by remote address, oldest first
	npending int
	trusted  map[*gatedConn]struct{}
}

func newGate(l net.Listener, maxPending, perIP, maxTrusted int, stall time.Duration) *gate {
	return &gate{Listener: l, maxPending: maxPending, perIP: perIP, maxTrusted: maxTrusted, stall: stall,
		freed: make(chan struct{}, 1), pending: map[string][]*gatedConn{}, trusted: map[*gatedConn]struct{}{}}
}

func (g *gate) Accept() (net.Conn, error) {
	c, err := g.Listener.Accept()
	if err != nil {
		return nil, err
	}
	ip := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(ip); err == nil {
		ip = host
	}
	gc := &gatedConn{Conn: c, gate: g, ip: ip, accepted: time.Now()}
	gc.progress.Store(gc.accepted.UnixNano())
	for {
		g.mu.Lock()
		evict, ok := g.victim(ip, time.Since(gc.accepted) >= pendingWait)
		if ok {
			if evict != nil {
				g.drop(evict)
			}
			g.pending[ip] = append(g.pending[ip], gc)
			g.npending++
			g.mu.Unlock()
			if evict != nil {
				evict.Conn.Close() // the server sees its read fail, and closes it
			}
			return gc, nil
		}
		g.mu.Unlock()
		t := time.NewTimer(2 * time.Millisecond) // for the server to read them
		select {
		case <-g.freed:
		case <-t.C:
		}
		t.Stop()
	}
}

// victim returns the pending connection to close for one more from ip:
// nil and true when there is room, or when the budget is passed but not
// hardCap times over and no candidate waits on its client; false when
// none does at hardCap times the budget, unless anyway. g.mu is held.
func (g *gate) victim(ip string, anyway bool) (*gatedConn, bool) {
	var list []*gatedConn
	full := false
	switch {
	case g.perIP > 0 && len(g.pending[ip]) >= g.perIP:
		list, full = g.pending[ip], len(g.pending[ip]) >= hardCap*g.perIP
	case g.maxPending > 0 && g.npending >= g.maxPending:
		most := ""
		for k, v := range g.pending {
			if len(v) > len(g.pending[most]) {
				most = k
			}
		}
		list, full = g.pending[most], g.npending >= hardCap*g.maxPending
	default:
		return nil, true
	}
	now := time.Now()
	for _, c := range list {
		if c.waitsOnClient(now) {
			return c, true
		}
	}
	if !full {
		return nil, true
	}
	return list[0], anyway
}

// drop removes c from the pending connections; g.mu is held.
func (g *gate) drop(c *gatedConn) {
	list := g.pending[c.ip]
	for i, p := range list {
		if p == c {
			list = append(list[:i:i], list[i+1:]...)
			g.npending--
			break
		}
	}
	if len(list) == 0 {
		delete(g.pending, c.ip)
	} else {
		g.pending[c.ip] = list
	}
	c.state = dropped
	select {
	case g.freed <- struct{}{}:
	default:
	}
}

// trust makes c a trusted connection, closing the longest stalled one to
// make room when maxTrusted are open, and reports false when none is.
func (g *gate) trust(c *gatedConn) bool {
	g.mu.Lock()
	switch c.state {
	case trusted:
		g.mu.Unlock()
		return true
	case dropped:
		g.mu.Unlock()
		return false
	}
	var evict *gatedConn
	if g.maxTrusted > 0 && len(g.trusted) >= g.maxTrusted {
		now := time.Now()
		var longest time.Duration
		for t := range g.trusted {
			if d := t.stalled(now); d >= g.stall && d > longest {
				evict, longest = t, d
			}
		}
		if evict == nil {
			g.mu.Unlock()
			return false
		}
		delete(g.trusted, evict)
		evict.state = dropped
	}
	g.drop(c)
	c.state = trusted
	g.trusted[c] = struct{}{}
	g.mu.Unlock()
	if evict != nil {
		evict.Conn.Close()
	}
	return true
}

type connState int

const (
	pending connState = iota
	trusted
	dropped // evicted or closed
)

type gatedConn struct {
	net.Conn
	gate     *gate
	ip       string
	accepted time.Time
	state    connState // under gate.mu

	reading  atomic.Int32 // in a read of a request
	progress atomic.Int64 // Unix nanoseconds of the last byte read or written, or request served
	serving  atomic.Int32 // a handler runs
	waiting  atomic.Int32 // the handler waits on the client: reading its body, writing to it
}

// stalled returns how long c has done nothing useful: 0 while its
// handler works, else the time since its last byte or request.
func (c *gatedConn) stalled(now time.Time) time.Duration {
	if c.serving.Load() > 0 && c.waiting.Load() == 0 {
		return 0
	}
	return now.Sub(time.Unix(0, c.progress.Load()))
}

// waitsOnClient reports whether c, pending, waits on its client: the
// server is reading a request from it, and nothing came for pendingQuiet
// (since its accept, or its last bytes). (A read of one byte is not: it is
// the one net/http makes to watch for the client closing while a request
// is served.)
func (c *gatedConn) waitsOnClient(now time.Time) bool {
	return c.reading.Load() > 0 && now.Sub(time.Unix(0, c.progress.Load())) >= pendingQuiet
}

func (c *gatedConn) touch() { c.progress.Store(time.Now().UnixNano()) }

func (c *gatedConn) Read(p []byte) (int, error) {
	if len(p) > 1 {
		c.reading.Add(1)
		defer c.reading.Add(-1)
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *gatedConn) Write(p []byte) (int, error) {
	c.waiting.Add(1)
	n, err := c.Conn.Write(p)
	c.waiting.Add(-1)
	if n > 0 {
		c.touch()
	}
	return n, err
}

func (c *gatedConn) Close() error {
	g := c.gate
	g.mu.Lock()
	switch c.state {
	case pending:
		g.drop(c)
	case trusted:
		delete(g.trusted, c)
		c.state = dropped
	}
	g.mu.Unlock()
	return c.Conn.Close()
}

// serve marks c's handler running until the returned func is called, and
// returns body, whose reads count as waiting on the client.
func (c *gatedConn) serve(body io.ReadCloser) (io.ReadCloser, func()) {
	c.serving.Add(1)
	c.touch()
	return &waitingBody{ReadCloser: body, c: c}, func() { c.touch(); c.serving.Add(-1) }
}

// waitingBody is a request body whose reads count as waiting on the client.
type waitingBody struct {
	io.ReadCloser
	c *gatedConn
}

func (b *waitingBody) Read(p []byte) (int, error) {
	b.c.waiting.Add(1)
	defer b.c.waiting.Add(-1)
	return b.ReadCloser.Read(p)
}

type connKey struct{}

// connContext keeps each connection in its requests' context, so that
// [Server.serveHTTP] can trust it.
func connContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*gatedConn); ok {
		return context.WithValue(ctx, connKey{}, gc)
	}
	return ctx
}
