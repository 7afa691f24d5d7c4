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

// SetOldLayout has new chunks written with S2 and block texts kept
// inline, as before migration 0012, and relayout transactions of chunks
// chunks, for tests; it returns the function that restores them.
func SetOldLayout(chunks int) (restore func()) {
	c, v, r := chunkCodec, viewMin, relayoutChunks
	chunkCodec, viewMin, relayoutChunks = codecS2, 1<<62, chunks
	return func() { chunkCodec, viewMin, relayoutChunks = c, v, r }
}

// SetRelayoutChunks sets how many chunks a relayout transaction
// rewrites, for tests.
func SetRelayoutChunks(n int) { relayoutChunks = n }

// DropChunkCache forgets the chunks db read, as a new process would.
func (db *DB) DropChunkCache() { db.chunks.drop() }
