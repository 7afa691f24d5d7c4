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

// KeepRetired leaves the blocks an import or a drop hid undeleted, as a
// kill right after its transaction would; it returns the function that
// restores the deletion.
func KeepRetired() (restore func()) {
	keepRetired = true
	return func() { keepRetired = false }
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

// SetRefill sets how many blocks a transaction of migration 0014's
// refill indexes and what is called after each, for tests; it returns
// the function that restores them.
func SetRefill(blocks int, each func()) (restore func()) {
	b, e := refillBlocks, refilled
	refillBlocks, refilled = blocks, each
	return func() { refillBlocks, refilled = b, e }
}

// OldIndex rebuilds the search index of the store at path in its layout
// before migration 0014 (positions kept) and forgets the migration, so
// that the next open migrates it again.
func OldIndex(path string) error {
	db := NewDB(path)
	if err := db.Open(); err != nil {
		return err
	}
	defer db.Close()
	if _, err := db.db.Exec(`
		DROP TABLE blocks_fts;
		CREATE VIRTUAL TABLE blocks_fts USING fts5 (content, content = '', contentless_delete = 1,
			tokenize = 'porter unicode61 remove_diacritics 2');
		CREATE TABLE refill (next INTEGER NOT NULL, last INTEGER NOT NULL);
		INSERT INTO refill SELECT COALESCE(min(id), 1), COALESCE(max(id), 0) FROM blocks WHERE searchable = 1;
		DELETE FROM migrations WHERE name IN ('migration/0014_search_layout.sql', 'migration/0020_search_detail_none.sql')`); err != nil {
		return err
	}
	// An index with positions was given each block's whole text.
	indexWords = func(t string) string { return t }
	defer func() { indexWords = distinctWords }()
	if err := db.refill(); err != nil {
		return err
	}
	_, err := db.db.Exec(`DELETE FROM migrations WHERE name IN ('migration/0014_search_layout.sql', 'migration/0020_search_detail_none.sql')`)
	return err
}
