package http

import (
	"context"
	"net"
	"sync"
)

// Connection limits. A connection is pending from its accept until a
// request on it is authorized (carries the token, or, without one, is
// addressed to this machine); then it is trusted until it closes.
//
// Pending connections never wait to be accepted: when MaxPending of them
// are open, or PendingPerIP from the new one's address, the oldest pending
// connection of the address with the most is closed to make room. Stalled
// or unauthenticated clients so only ever drop each other, and a client
// that sends its token at once is served however many of them there are.
const (
	DefaultMaxPending   = 64
	DefaultPendingPerIP = 16
)

// A gate is a listener that keeps pending connections within their budget
// by closing the oldest, and trusted ones within theirs by refusing more.
type gate struct {
	net.Listener
	maxPending, perIP, maxTrusted int

	mu       sync.Mutex
	pending  map[string][]*gatedConn // by remote address, oldest first
	npending int
	ntrusted int
}

func newGate(l net.Listener, maxPending, perIP, maxTrusted int) *gate {
	return &gate{Listener: l, maxPending: maxPending, perIP: perIP, maxTrusted: maxTrusted, pending: map[string][]*gatedConn{}}
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
	gc := &gatedConn{Conn: c, gate: g, ip: ip}
	g.mu.Lock()
	var evict *gatedConn
	switch {
	case g.perIP > 0 && len(g.pending[ip]) >= g.perIP:
		evict = g.pending[ip][0]
	case g.maxPending > 0 && g.npending >= g.maxPending:
		most := ""
		for k, v := range g.pending {
			if len(v) > len(g.pending[most]) {
				most = k
			}
		}
		evict = g.pending[most][0]
	}
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
}

// trust makes c a trusted connection, and reports false when maxTrusted
// are open already.
func (g *gate) trust(c *gatedConn) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch c.state {
	case trusted:
		return true
	case dropped:
		return false
	}
	if g.maxTrusted > 0 && g.ntrusted >= g.maxTrusted {
		return false
	}
	g.drop(c)
	c.state = trusted
	g.ntrusted++
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
	gate  *gate
	ip    string
	state connState // under gate.mu
}

func (c *gatedConn) Close() error {
	g := c.gate
	g.mu.Lock()
	switch c.state {
	case pending:
		g.drop(c)
	case trusted:
		g.ntrusted--
		c.state = dropped
	}
	g.mu.Unlock()
	return c.Conn.Close()
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

// A semaphore bounds the heavy requests served at once.
type semaphore chan struct{}

// acquire waits for a slot, and reports false if ctx ends first.
func (s semaphore) acquire(ctx context.Context) bool {
	select {
	case s <- struct{}{}:
		return true
	case <-ctx.Done():
		return false
	}
}

func (s semaphore) release() { <-s }
