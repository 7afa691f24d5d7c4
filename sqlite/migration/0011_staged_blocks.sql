-- The blocks of a huge inscription (a message of a million blocks) are
-- written in several short transactions before the one that stores its
-- batch, so that no transaction holds the write lock for seconds. Until
-- that batch commits, the ids of those blocks are listed here, by
-- ranges (each staging transaction's rows have consecutive ids), and no
-- reader sees them: every query of blocks skips a listed id. The batch's
-- transaction deletes its rows, which makes its blocks visible at once;
-- an import that never got there (a crash, a lost race) leaves rows that
-- the next import of the session deletes, with their blocks.
CREATE TABLE staged_blocks (
	session_id TEXT NOT NULL,
	token TEXT NOT NULL, -- the staging import's
	lo INTEGER NOT NULL,
	hi INTEGER NOT NULL
);
CREATE INDEX staged_blocks_session ON staged_blocks (session_id, lo);
