package sqlite

import (
	"context"
	"time"
)

// SetStaging sets how many blocks a staging transaction writes and the
// gap between two, for tests; it returns the function that restores them.
func SetStaging(blocks int, gap time.Duration) (restore func()) {
	b, g := stageBlocks, stageGap
	stageBlocks, stageGap = blocks, gap
	return func() { stageBlocks, stageGap = b, g }
}

// DropStaged drops every staged block of session id, as an import of it
// does first.
func (s *InscriptionStore) DropStaged(ctx context.Context, id string) error {
	return s.dropStaged(ctx, id, "")
}
