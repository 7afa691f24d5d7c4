-- Sessions: one agent conversation, its lineage, and how far its transcript
-- file has been inscribed (src_*, head_hash, tail_hash, generation).
CREATE TABLE sessions (
	id                    TEXT PRIMARY KEY,
	agent                 TEXT NOT NULL,
	lineage               TEXT NOT NULL,
	parent                TEXT NOT NULL DEFAULT '',
	parent_round          INTEGER NOT NULL DEFAULT 0,
	agent_id              TEXT NOT NULL DEFAULT '',
	project               TEXT NOT NULL DEFAULT '',
	title                 TEXT NOT NULL DEFAULT '',
	version               TEXT NOT NULL DEFAULT '',
	git_branch            TEXT NOT NULL DEFAULT '',
	path                  TEXT NOT NULL DEFAULT '',
	src_offset            INTEGER NOT NULL DEFAULT 0,
	src_lines             INTEGER NOT NULL DEFAULT 0,
	head_hash             BLOB,
	tail_hash             BLOB,
	generation            INTEGER NOT NULL DEFAULT 0,
	started_at            TEXT NOT NULL DEFAULT '',
	ended_at              TEXT NOT NULL DEFAULT '',
	round_count           INTEGER NOT NULL DEFAULT 0,
	input_tokens          INTEGER NOT NULL DEFAULT 0,
	output_tokens         INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	created_at            TEXT NOT NULL,
	updated_at            TEXT NOT NULL
);
CREATE INDEX sessions_ended_at ON sessions (ended_at);
CREATE INDEX sessions_project ON sessions (project);
CREATE INDEX sessions_parent ON sessions (parent) WHERE parent != '';
CREATE INDEX sessions_path ON sessions (path);

-- Lines: the block store. Raw bytes are written once and never changed; a
-- rewritten file starts a new generation and the old one stays. Lines are
-- kept in chunks of consecutive lines (up to 256 KiB): data is the raw
-- bytes, S2-compressed (transcripts compress about fivefold, and bytes and
-- rows not written are most of import speed); meta is the parsed index of
-- each line (S2-compressed JSON, see sqlite/chunk.go), which reindex
-- rewrites. Lines first_no..last_no of a session's generation are in one
-- chunk.
CREATE TABLE chunks (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL,
	generation INTEGER NOT NULL,
	first_no   INTEGER NOT NULL,
	last_no    INTEGER NOT NULL,
	data       BLOB NOT NULL,
	meta       BLOB NOT NULL
);
CREATE UNIQUE INDEX chunks_lines ON chunks (session_id, generation, first_no);

-- Rounds, blocks, messages and the search index: rebuilt from lines at will.
CREATE TABLE rounds (
	session_id    TEXT NOT NULL,
	seq           INTEGER NOT NULL,
	started_at    TEXT NOT NULL DEFAULT '',
	ended_at      TEXT NOT NULL DEFAULT '',
	first_line    INTEGER NOT NULL,
	last_line     INTEGER NOT NULL,
	user_preview  TEXT NOT NULL DEFAULT '',
	agent_preview TEXT NOT NULL DEFAULT '',
	tools         TEXT NOT NULL DEFAULT '',
	input_tokens          INTEGER NOT NULL DEFAULT 0,
	output_tokens         INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, seq)
);
CREATE INDEX rounds_started_at ON rounds (started_at);

CREATE TABLE blocks (
	id         INTEGER PRIMARY KEY,
	session_id TEXT NOT NULL,
	round_seq  INTEGER NOT NULL,
	line_no    INTEGER NOT NULL,
	idx        INTEGER NOT NULL,
	role       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	timestamp  TEXT NOT NULL DEFAULT '',
	content    TEXT NOT NULL,
	tool_name  TEXT NOT NULL DEFAULT '',
	tool_id    TEXT NOT NULL DEFAULT '',
	agent_id   TEXT NOT NULL DEFAULT '',
	is_error   INTEGER NOT NULL DEFAULT 0,
	sidechain  INTEGER NOT NULL DEFAULT 0,
	message_id TEXT NOT NULL DEFAULT '',
	searchable INTEGER NOT NULL DEFAULT 0 -- in blocks_fts; deletes must match inserts exactly
);
CREATE INDEX blocks_round ON blocks (session_id, round_seq);
CREATE INDEX blocks_agent ON blocks (agent_id) WHERE agent_id != '';

-- Only user-text and assistant-text blocks are indexed (see cairn.BlockKind.Searchable),
-- by blocks.id, as cairn.SearchText gives them: CJK characters set apart, so
-- that unicode61 makes each one a token and a run of them is a phrase.
CREATE VIRTUAL TABLE blocks_fts USING fts5 (content, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE messages (
	session_id TEXT NOT NULL,
	message_id TEXT NOT NULL,
	round_seq  INTEGER NOT NULL,
	model      TEXT NOT NULL DEFAULT '',
	input_tokens          INTEGER NOT NULL DEFAULT 0,
	output_tokens         INTEGER NOT NULL DEFAULT 0,
	cache_read_tokens     INTEGER NOT NULL DEFAULT 0,
	cache_creation_tokens INTEGER NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, message_id)
);
CREATE INDEX messages_round ON messages (session_id, round_seq);

-- Tags on rounds are mutable and live apart from rounds, so rebuilding a
-- round from its lines never loses them.
CREATE TABLE round_tags (
	session_id    TEXT NOT NULL,
	seq           INTEGER NOT NULL,
	engagement_id TEXT NOT NULL DEFAULT '',
	frame_id      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (session_id, seq)
);
CREATE INDEX round_tags_engagement ON round_tags (engagement_id) WHERE engagement_id != '';
CREATE INDEX round_tags_frame ON round_tags (frame_id) WHERE frame_id != '';
