-- Each indexed block's length, packed 256 ids to a row, for search's
-- ranking to read in a few rows what FTS5's docsize keeps in a row per
-- block (sqlite/lengths.go). Filled from docsize; the index's writes
-- keep it.
CREATE TABLE block_lengths (page INTEGER PRIMARY KEY, lens BLOB NOT NULL);
INSERT INTO block_lengths (page, lens)
	SELECT id / 256, cairn_lengths(id, sz) FROM blocks_fts_docsize GROUP BY id / 256;
