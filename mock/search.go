package mock

import (
	"context"

	"github.com/cairn-dev/cairn"
)

var _ cairn.Searcher = (*Searcher)(nil)

// Searcher is a [cairn.Searcher] whose method is its field.
type Searcher struct {
	SearchFn func(ctx context.Context, q cairn.SearchQuery) ([]*cairn.Hit, error)
}

func (s *Searcher) Search(ctx context.Context, q cairn.SearchQuery) ([]*cairn.Hit, error) {
	return s.SearchFn(ctx, q)
}
