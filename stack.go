package cairn

import (
	"context"
	"time"
)

// Stack applies the frame operations of [FrameTree] to a [FrameStore]: it
// reads the tree, checks the operation against it and writes the change.
// Every write carries the versions it read, so when two agents act at once
// one of them gets ECONFLICT from the store; Stack then reads the tree
// again and re-checks, a few times, before giving up. The CLI, MCP and
// HTTP edges all call Stack.
type Stack struct {
	Frames FrameStore
	Now    func() time.Time // defaults to time.Now
}

// retries bounds how often an operation is re-checked after losing a race.
const retries = 5

func (s *Stack) now() time.Time {
	if s.Now != nil {
		return s.Now().UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Tree reads the frame tree.
func (s *Stack) Tree(ctx context.Context) (*FrameTree, error) {
	frames, err := s.Frames.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	return NewFrameTree(frames), nil
}

// apply runs op on a fresh tree and writes its change, again if the store
// reports that the frames it read have changed meanwhile.
func (s *Stack) apply(ctx context.Context, op func(t *FrameTree, now time.Time) (*FrameChange, error)) (*FrameChange, error) {
	var err error
	for range retries {
		var t *FrameTree
		if t, err = s.Tree(ctx); err != nil {
			return nil, err
		}
		var c *FrameChange
		if c, err = op(t, s.now()); err != nil {
			return nil, err
		}
		if err = s.Frames.ApplyFrameChange(ctx, c); ErrorCode(err) != ECONFLICT {
			return c, err
		}
	}
	return nil, err
}

// Push starts f as an in-progress child of parentID ("" for a root), owned
// by owner; see [FrameTree.Push]. The returned change holds the new frame
// with its ID.
func (s *Stack) Push(ctx context.Context, parentID string, f *Frame, owner string) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, now time.Time) (*FrameChange, error) { return t.Push(parentID, f, owner, now) })
}

// Plan adds planned children under parentID; see [FrameTree.Plan].
func (s *Stack) Plan(ctx context.Context, parentID string, frames []*Frame) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, _ time.Time) (*FrameChange, error) { return t.Plan(parentID, frames) })
}

// Replan edits a planned frame; see [FrameTree.Replan].
func (s *Stack) Replan(ctx context.Context, id string, edit Frame) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, _ time.Time) (*FrameChange, error) { return t.Replan(id, edit) })
}

// Activate puts a planned or blocked frame in progress; see
// [FrameTree.Activate].
func (s *Stack) Activate(ctx context.Context, id, owner string) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, now time.Time) (*FrameChange, error) { return t.Activate(id, owner, now) })
}

// Pop ends an in-progress frame with results; see [FrameTree.Pop].
func (s *Stack) Pop(ctx context.Context, id string, r FrameResults) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, now time.Time) (*FrameChange, error) { return t.Pop(id, r, now) })
}

// Invalidate marks a frame no longer relevant, cascading to its planned
// descendants; see [FrameTree.Invalidate].
func (s *Stack) Invalidate(ctx context.Context, id string) (*FrameChange, error) {
	return s.apply(ctx, func(t *FrameTree, now time.Time) (*FrameChange, error) { return t.Invalidate(id, now) })
}

// Claim activates the first ready frame for owner and returns it. Claiming
// is atomic: the activation is written only if the frame is still planned
// at the version read, so two agents claiming at once never get the same
// frame; the one that loses the race moves on to the next ready frame.
// Returns ENOTFOUND if no frame is ready.
func (s *Stack) Claim(ctx context.Context, owner string) (*Frame, error) {
	for {
		t, err := s.Tree(ctx)
		if err != nil {
			return nil, err
		}
		ready := t.Ready()
		if len(ready) == 0 {
			return nil, Errorf(ENOTFOUND, "No frame is ready: every planned frame waits on a dependency, or none is planned.")
		}
		for _, f := range ready {
			c, err := t.Activate(f.ID, owner, s.now())
			if err != nil {
				return nil, err
			}
			switch err := s.Frames.ApplyFrameChange(ctx, c); ErrorCode(err) {
			case "":
				return c.Update[len(c.Update)-1], nil
			case ECONFLICT:
				// Someone else took it, or its parent changed: try the next.
			default:
				return nil, err
			}
		}
		// Every candidate changed under us; read the tree again. Each round
		// of losses means other claims succeeded, so this ends.
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
}

// Current returns owner's current frame (see [FrameTree.Current]).
// Returns ENOTFOUND if no frame is in progress.
func (s *Stack) Current(ctx context.Context, owner string) (*Frame, error) {
	t, err := s.Tree(ctx)
	if err != nil {
		return nil, err
	}
	if f := t.Current(owner); f != nil {
		return f, nil
	}
	return nil, Errorf(ENOTFOUND, "No frame is in progress. Start one with: cairn push TITLE --criteria TEXT")
}

// ActiveFrame returns the frame owner was working on at time at, for
// tagging the rounds recorded then (see [FrameTree.ActiveAt]); pass the
// round's start time, or time.Now() for a live session. Returns ENOTFOUND
// if no frame was active.
func ActiveFrame(ctx context.Context, s FrameStore, owner string, at time.Time) (*Frame, error) {
	frames, err := s.FindFrames(ctx)
	if err != nil {
		return nil, err
	}
	if f := NewFrameTree(frames).ActiveAt(owner, at); f != nil {
		return f, nil
	}
	return nil, Errorf(ENOTFOUND, "No frame was active at %s.", at.UTC().Format(time.RFC3339))
}
