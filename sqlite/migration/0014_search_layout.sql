-- The search index keeps, for each word, the blocks it is in and not
-- where in them (detail=column; one column, so no more than that):
-- positions were three quarters of the index (at 1 GB of transcripts,
-- 59 MB with them, 33 MB without), and what search asks of the index
-- needs none. Its queries are words ANDed, each a token or a prefix; a
-- word the tokenizer splits in several (a run of CJK characters, a
-- snake_case name) is found by its tokens ANDed and then kept only where
-- the block's text holds them as a phrase (sqlite/phrase.go). Ranking is
-- bm25 over each block's length, every word counted once.
--
-- The index is rebuilt from the blocks, whose text may be a view of its
-- line, by Go (sqlite/refill.go): refill holds the ids still to index,
-- a few thousand blocks to a transaction, so a run that was killed
-- carries on where it stopped; the migration is recorded by the last.
-- Until then, search finds only the blocks indexed so far.
DROP TABLE blocks_fts;
CREATE VIRTUAL TABLE blocks_fts USING fts5 (
	content,
	content = '',
	contentless_delete = 1,
	detail = column,
	tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TABLE refill (next INTEGER NOT NULL, last INTEGER NOT NULL);
INSERT INTO refill SELECT COALESCE(min(id), 1), COALESCE(max(id), 0) FROM blocks WHERE searchable = 1;
