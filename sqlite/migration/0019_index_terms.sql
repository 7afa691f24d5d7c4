-- Every term the search index holds, for a query's prefix to be searched
-- as the terms it begins (sqlite/terms.go). Filled from the index's
-- vocabulary; the index's writes keep it.
CREATE TABLE index_terms (term TEXT PRIMARY KEY) WITHOUT ROWID;
CREATE VIRTUAL TABLE temp.index_vocab USING fts5vocab (main, blocks_fts, 'row');
INSERT INTO index_terms (term) SELECT term FROM temp.index_vocab;
DROP TABLE temp.index_vocab;
