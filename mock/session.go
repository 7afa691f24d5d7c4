package mock

import (
	"context"

	"github.com/cairn-dev/cairn"
)

var _ cairn.SessionStore = (*SessionStore)(nil)

// SessionStore is a [cairn.SessionStore] whose methods are its fields.
type SessionStore struct {
	FindSessionByIDFn func(ctx context.Context, ref string) (*cairn.Session, error)
	FindSessionsFn    func(ctx context.Context, filter cairn.SessionFilter) ([]*cairn.Session, int, error)
	SetLineageFn      func(ctx context.Context, id, lineage string, parents []string, operation, recipe string) error
}

func (s *SessionStore) FindSessionByID(ctx context.Context, ref string) (*cairn.Session, error) {
	return s.FindSessionByIDFn(ctx, ref)
}

func (s *SessionStore) FindSessions(ctx context.Context, filter cairn.SessionFilter) ([]*cairn.Session, int, error) {
	return s.FindSessionsFn(ctx, filter)
}

func (s *SessionStore) SetLineage(ctx context.Context, id, lineage string, parents []string, operation, recipe string) error {
	return s.SetLineageFn(ctx, id, lineage, parents, operation, recipe)
}
