-- FTS5 merges the search index's segments once automerge of them lie on
-- one level, and every import transaction adds one. At 4, SQLite's
-- default, an import of 1 GB of transcripts took 19.0 s (29.9 s of user
-- CPU), at 8 17.4 s (27.8 s): three paired runs each, the index no larger
-- (30.6 MB) and searches as fast (a level holds up to 7 segments instead
-- of 3: a few more seeks per word).
INSERT INTO blocks_fts (blocks_fts, rank) VALUES ('automerge', 8);
