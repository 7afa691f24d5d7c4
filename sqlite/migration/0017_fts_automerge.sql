-- FTS5 merges the search index's segments once automerge of them lie on
-- one level, and every import transaction adds one. At 4, SQLite's
-- default, an import of 1 GB of transcripts took 19.0 s (29.9 s of user
-- CPU), at 8 17.4 s (27.8 s), three paired runs each; of 3 GB 65.3 s
-- against 60.6 s (two each); of 10 GB 231 s against 202 s (one each).
-- The index is no larger and searches as fast, at 1 GB and at 10 GB (a
-- level holds up to 7 segments instead of 3: a few more seeks per word);
-- 16 measured as 8.
INSERT INTO blocks_fts (blocks_fts, rank) VALUES ('automerge', 8);
