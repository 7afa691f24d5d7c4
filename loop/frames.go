package loop

import (
	"context"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn"
)

// FramesOnce is fs with its frames read once for as long as nothing is
// written through it: a hook reads every frame at its import (the active
// frame its rounds are tagged with, [ActiveTags]) and again at its end
// ([Loop.popped], the session end's change), each read a statement
// compiled and run on the store. A write through it (a push, a pop, a
// tag) reads them again at the next call. Each call returns copies, so a
// caller that changes a frame changes none another holds. Frames another
// process writes meanwhile are seen by the next hook, as they would be
// had they been written a moment later: it is meant for one hook's
// stores, not a long-lived process's.
func FramesOnce(fs cairn.FrameStore) cairn.FrameStore { return &framesOnce{FrameStore: fs} }

type framesOnce struct {
	cairn.FrameStore
	mu     sync.Mutex
	frames []*cairn.Frame // nil: not read since the last write
}

func (o *framesOnce) FindFrames(ctx context.Context) ([]*cairn.Frame, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.frames == nil {
		frames, err := o.FrameStore.FindFrames(ctx)
		if err != nil {
			return nil, err
		}
		o.frames = append(make([]*cairn.Frame, 0, len(frames)), frames...)
	}
	out := make([]*cairn.Frame, len(o.frames))
	for i, f := range o.frames {
		c := *f
		c.Artifacts, c.Decisions, c.DependsOn = slices.Clone(f.Artifacts), slices.Clone(f.Decisions), slices.Clone(f.DependsOn)
		out[i] = &c
	}
	return out, nil
}

func (o *framesOnce) ApplyFrameChange(ctx context.Context, c *cairn.FrameChange) error {
	o.forget()
	return o.FrameStore.ApplyFrameChange(ctx, c)
}

func (o *framesOnce) TagFrameRounds(ctx context.Context, frameID string, rounds []cairn.RoundRef) error {
	o.forget()
	return o.FrameStore.TagFrameRounds(ctx, frameID, rounds)
}

func (o *framesOnce) forget() {
	o.mu.Lock()
	o.frames = nil
	o.mu.Unlock()
}
