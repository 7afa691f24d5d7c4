package mock

import (
	"context"

	"github.com/cairn-dev/cairn"
)

var _ cairn.TagStore = (*TagStore)(nil)

// TagStore is a [cairn.TagStore] whose methods are its fields.
type TagStore struct {
	TagRoundsFn   func(ctx context.Context, sessionID string, seqs []int, engagementID, frameID string) error
	UntagRoundsFn func(ctx context.Context, sessionID string, seqs []int) error
}

func (s *TagStore) TagRounds(ctx context.Context, sessionID string, seqs []int, engagementID, frameID string) error {
	return s.TagRoundsFn(ctx, sessionID, seqs, engagementID, frameID)
}

func (s *TagStore) UntagRounds(ctx context.Context, sessionID string, seqs []int) error {
	return s.UntagRoundsFn(ctx, sessionID, seqs)
}
