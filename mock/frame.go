package mock

import (
	"context"

	"github.com/cairn-dev/cairn"
)

var _ cairn.FrameStore = (*FrameStore)(nil)

// FrameStore is a [cairn.FrameStore] whose methods are its fields.
type FrameStore struct {
	FindFrameByIDFn    func(ctx context.Context, id string) (*cairn.Frame, error)
	FindFramesFn       func(ctx context.Context) ([]*cairn.Frame, error)
	ApplyFrameChangeFn func(ctx context.Context, c *cairn.FrameChange) error
	TagFrameRoundsFn   func(ctx context.Context, frameID string, rounds []cairn.RoundRef) error
}

func (s *FrameStore) FindFrameByID(ctx context.Context, id string) (*cairn.Frame, error) {
	return s.FindFrameByIDFn(ctx, id)
}

func (s *FrameStore) FindFrames(ctx context.Context) ([]*cairn.Frame, error) {
	return s.FindFramesFn(ctx)
}

func (s *FrameStore) ApplyFrameChange(ctx context.Context, c *cairn.FrameChange) error {
	return s.ApplyFrameChangeFn(ctx, c)
}

func (s *FrameStore) TagFrameRounds(ctx context.Context, frameID string, rounds []cairn.RoundRef) error {
	return s.TagFrameRoundsFn(ctx, frameID, rounds)
}
