-- The search index keeps which blocks hold a word and nothing more
-- (detail=none). With detail=column it kept, beside every block of every
-- word's list, the column the word was in: one column, so nothing a
-- search reads, and at 1 GB of transcripts 33.7 MB of index against
-- 14.3, and a seventh more of the index's CPU at import. FTS5 merges
-- the lists of a prefix's words slowly in this layout; search reads a
-- prefix as the words it begins (sqlite/terms.go, migration 0019)
-- instead, which is faster in either. Rebuilt from the blocks as
-- migration 0014 was (sqlite/refill.go): the lengths (block_lengths)
-- and words (index_terms) it rewrites are the same.
DROP TABLE blocks_fts;
CREATE VIRTUAL TABLE blocks_fts USING fts5 (
	content,
	content = '',
	contentless_delete = 1,
	detail = none,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO blocks_fts (blocks_fts, rank) VALUES ('automerge', 8);
DROP TABLE IF EXISTS refill;
CREATE TABLE refill (next INTEGER NOT NULL, last INTEGER NOT NULL);
INSERT INTO refill SELECT COALESCE(min(id), 1), COALESCE(max(id), 0) FROM blocks WHERE searchable = 1;
