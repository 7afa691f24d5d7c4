-- The row tables name their session by a number, not its 36-character
-- id: every block and message repeated the id in its row and in each of
-- its indexes, a third of the bytes of blocks and messages.
--
-- session_nums gives each session its number the first time the store
-- writes anything of it (the staged blocks of a new session come before
-- its sessions row): num is an INTEGER PRIMARY KEY, which VACUUM keeps,
-- and a dropped session's row goes with its blocks.
--
-- blocks.timestamp is milliseconds since 1970 (0: none) instead of 24
-- characters of text; blocks.kind and blocks.role are small integers
-- (sqlite/code.go; a kind or role without one is kept as its text, which
-- the columns, of no type, store as given); messages are stored in their primary key's order
-- (WITHOUT ROWID), so that key needs no second copy in an index.
--
-- The tables are rebuilt in this migration's one transaction: block ids,
-- which the search index names, stay as they were.
CREATE TABLE session_nums (
	num        INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL UNIQUE
);
INSERT INTO session_nums (session_id) SELECT id FROM sessions ORDER BY rowid;
INSERT OR IGNORE INTO session_nums (session_id)
	SELECT session_id FROM blocks UNION SELECT session_id FROM messages UNION SELECT session_id FROM staged_blocks;

CREATE TABLE blocks_v16 (
	id          INTEGER PRIMARY KEY,
	session_num INTEGER NOT NULL, -- session_nums.num
	round_seq   INTEGER NOT NULL,
	line_no     INTEGER NOT NULL,
	idx         INTEGER NOT NULL,
	role        BLOB NOT NULL, -- code.go: 1 user, 2 assistant, 3 system, else the text
	kind        BLOB NOT NULL, -- code.go: 1 user-text … 4 tool-use … 7 compaction, else the text
	timestamp   INTEGER NOT NULL DEFAULT 0, -- Unix milliseconds, 0 if none
	content     TEXT NOT NULL,
	tool_name   TEXT NOT NULL DEFAULT '',
	tool_id     TEXT NOT NULL DEFAULT '',
	agent_id    TEXT NOT NULL DEFAULT '',
	is_error    INTEGER NOT NULL DEFAULT 0,
	sidechain   INTEGER NOT NULL DEFAULT 0,
	message_id  TEXT NOT NULL DEFAULT '',
	searchable  INTEGER NOT NULL DEFAULT 0, -- in blocks_fts; deletes must match inserts exactly
	step        INTEGER NOT NULL DEFAULT 0,
	span        INTEGER
);
INSERT INTO blocks_v16 (id, session_num, round_seq, line_no, idx, role, kind, timestamp, content, tool_name, tool_id,
		agent_id, is_error, sidechain, message_id, searchable, step, span)
	SELECT b.id, n.num, b.round_seq, b.line_no, b.idx,
		CASE b.role WHEN 'user' THEN 1 WHEN 'assistant' THEN 2 WHEN 'system' THEN 3 ELSE b.role END,
		CASE b.kind WHEN 'user-text' THEN 1 WHEN 'assistant-text' THEN 2 WHEN 'thinking' THEN 3 WHEN 'tool-use' THEN 4
			WHEN 'tool-result' THEN 5 WHEN 'meta-text' THEN 6 WHEN 'compaction' THEN 7 ELSE b.kind END,
		CASE WHEN b.timestamp = '' THEN 0 ELSE unixepoch(b.timestamp) * 1000 + CAST(substr(b.timestamp, 21, 3) AS INTEGER) END,
		b.content, b.tool_name, b.tool_id, b.agent_id, b.is_error, b.sidechain, b.message_id, b.searchable, b.step, b.span
	FROM blocks b JOIN session_nums n ON n.session_id = b.session_id ORDER BY b.id;
DROP TABLE blocks;
ALTER TABLE blocks_v16 RENAME TO blocks;
CREATE INDEX blocks_round ON blocks (session_num, round_seq);
CREATE INDEX blocks_agent ON blocks (agent_id) WHERE agent_id != '';
CREATE INDEX blocks_tool_use ON blocks (session_num, round_seq) WHERE kind = 4 AND sidechain = 0;

CREATE TABLE messages_v16 (
	session_num INTEGER NOT NULL,
	message_id  TEXT NOT NULL,
	round_seq   INTEGER NOT NULL,
	model       TEXT NOT NULL DEFAULT '',
	input_tokens          INTEGER NOT NULL DEFAULT 0,
	output_tokens         INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_num, message_id)
) WITHOUT ROWID;
INSERT INTO messages_v16
	SELECT n.num, m.message_id, m.round_seq, m.model, m.input_tokens, m.output_tokens, m.cache_read_tokens, m.cache_creation_tokens
	FROM messages m JOIN session_nums n ON n.session_id = m.session_id;
DROP TABLE messages;
ALTER TABLE messages_v16 RENAME TO messages;
CREATE INDEX messages_round ON messages (session_num, round_seq);

CREATE TABLE staged_blocks_v16 (
	session_num INTEGER NOT NULL,
	token TEXT NOT NULL, -- the staging import's
	lo INTEGER NOT NULL,
	hi INTEGER NOT NULL
);
INSERT INTO staged_blocks_v16
	SELECT n.num, p.token, p.lo, p.hi FROM staged_blocks p JOIN session_nums n ON n.session_id = p.session_id;
DROP TABLE staged_blocks;
ALTER TABLE staged_blocks_v16 RENAME TO staged_blocks;
CREATE INDEX staged_blocks_session ON staged_blocks (session_num, lo);
