package opencode

import (
	"crypto/rand"
	"fmt"
	"sync"
	"time"
)

// An IDs makes identifiers as opencode does: a prefix, twelve hex digits of
// the time in milliseconds times 4096 plus a counter (so ids made in one
// millisecond still sort), then fourteen random base-62 characters. A
// session's id counts down (bits inverted), so the newest sorts first.
type IDs struct {
	mu      sync.Mutex
	last    int64
	counter int64
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Ascending returns a new id with prefix (msg, prt) that sorts after every
// earlier one.
func (g *IDs) Ascending(prefix string, now time.Time) string { return g.make(prefix, now, false) }

// Descending returns a new id with prefix (ses) that sorts before every
// earlier one.
func (g *IDs) Descending(prefix string, now time.Time) string { return g.make(prefix, now, true) }

func (g *IDs) make(prefix string, now time.Time, desc bool) string {
	g.mu.Lock()
	ms := now.UnixMilli()
	if ms <= g.last {
		ms = g.last
		g.counter++
	} else {
		g.last, g.counter = ms, 0
	}
	v := (ms*0x1000 + g.counter) & 0xffffffffffff
	g.mu.Unlock()
	if desc {
		v ^= 0xffffffffffff
	}
	var r [14]byte
	if _, err := rand.Read(r[:]); err != nil {
		panic(err)
	}
	for i := range r {
		r[i] = base62[int(r[i])%len(base62)]
	}
	return fmt.Sprintf("%s_%012x%s", prefix, v, r[:])
}
