package inscribe

import (
	"context"
	"testing"
	"time"
)

// TestFlight: a file waits while the bytes of the files read already fill
// the flight, goes once one of them gives its bytes back, and stops
// waiting when the import is cancelled; a file larger than the flight
// takes all of it, once nothing else is taken.
func TestFlight(t *testing.T) {
	const limit = 100
	f := newFlight(limit)
	ctx := context.Background()
	if !f.take(ctx, 60, limit) || !f.take(ctx, 40, limit) {
		t.Fatal("the flight's first 100 bytes were refused")
	}
	got := make(chan bool, 1)
	go func() { got <- f.take(ctx, 30, limit) }()
	select {
	case <-got:
		t.Fatal("took 30 bytes of a full flight")
	case <-time.After(50 * time.Millisecond):
	}
	f.give(40, limit)
	if ok := <-got; !ok {
		t.Fatal("refused 30 bytes once 40 were given back")
	}

	big := make(chan bool, 1)
	go func() { big <- f.take(ctx, 1<<30, limit) }() // more than the flight: all of it
	f.give(60, limit)
	select {
	case <-big:
		t.Fatal("a file larger than the flight went while 30 bytes were taken")
	case <-time.After(50 * time.Millisecond):
	}
	f.give(30, limit)
	if ok := <-big; !ok {
		t.Fatal("a file larger than the flight never went")
	}

	cctx, cancel := context.WithCancel(ctx)
	stopped := make(chan bool, 1)
	go func() { stopped <- f.take(cctx, 1, limit) }()
	time.Sleep(20 * time.Millisecond)
	cancel()
	select {
	case ok := <-stopped:
		if ok {
			t.Fatal("took bytes of a full flight after the import was cancelled")
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a cancelled import kept waiting for the flight")
	}
}
