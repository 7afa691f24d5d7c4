package mock

import (
	"context"

	"github.com/cairn-dev/cairn"
)

var _ cairn.RoundStore = (*RoundStore)(nil)

// RoundStore is a [cairn.RoundStore] whose methods are its fields.
type RoundStore struct {
	FindRoundFn     func(ctx context.Context, sessionID string, seq int) (*cairn.Round, error)
	FindRoundsFn    func(ctx context.Context, filter cairn.RoundFilter) ([]*cairn.Round, error)
	CountRoundsFn   func(ctx context.Context, filter cairn.RoundFilter) (int, error)
	FindRoundPageFn func(ctx context.Context, sessionID string, seq int, page cairn.BlockPage) (*cairn.Round, int, error)
}

func (s *RoundStore) FindRound(ctx context.Context, sessionID string, seq int) (*cairn.Round, error) {
	return s.FindRoundFn(ctx, sessionID, seq)
}

func (s *RoundStore) FindRounds(ctx context.Context, filter cairn.RoundFilter) ([]*cairn.Round, error) {
	return s.FindRoundsFn(ctx, filter)
}

func (s *RoundStore) CountRounds(ctx context.Context, filter cairn.RoundFilter) (int, error) {
	return s.CountRoundsFn(ctx, filter)
}

func (s *RoundStore) FindRoundPage(ctx context.Context, sessionID string, seq int, page cairn.BlockPage) (*cairn.Round, int, error) {
	return s.FindRoundPageFn(ctx, sessionID, seq, page)
}
