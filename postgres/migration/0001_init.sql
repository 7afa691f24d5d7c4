-- The same schema as sqlite/migration/0001_init.sql in PostgreSQL's terms:
-- times are timestamptz (NULL for unknown), raw lines are bytea (TOAST
-- compresses them), search is a tsvector column on blocks, and identifiers
-- sort in byte order (COLLATE "C"), as in SQLite, so prefixes are ranges.

-- Sessions: one agent conversation, its lineage, and how far its transcript
-- file has been inscribed (src_*, head_hash, tail_hash, generation).
CREATE TABLE sessions (
	id                    TEXT COLLATE "C" PRIMARY KEY,
	agent                 TEXT NOT NULL,
	lineage               TEXT NOT NULL,
	parent                TEXT COLLATE "C" NOT NULL DEFAULT '',
	parent_round          INTEGER NOT NULL DEFAULT 0,
	agent_id              TEXT NOT NULL DEFAULT '',
	project               TEXT COLLATE "C" NOT NULL DEFAULT '',
	title                 TEXT NOT NULL DEFAULT '',
	version               TEXT NOT NULL DEFAULT '',
	git_branch            TEXT NOT NULL DEFAULT '',
	path                  TEXT COLLATE "C" NOT NULL DEFAULT '',
	src_offset            BIGINT NOT NULL DEFAULT 0,
	src_lines             INTEGER NOT NULL DEFAULT 0,
	head_hash             BYTEA,
	tail_hash             BYTEA,
	generation            INTEGER NOT NULL DEFAULT 0,
	started_at            TIMESTAMPTZ,
	ended_at              TIMESTAMPTZ,
	round_count           INTEGER NOT NULL DEFAULT 0,
	input_tokens          BIGINT NOT NULL DEFAULT 0,
	output_tokens         BIGINT NOT NULL DEFAULT 0,
	cache_read_tokens     BIGINT NOT NULL DEFAULT 0,
	cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
	created_at            TIMESTAMPTZ NOT NULL,
	updated_at            TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_ended_at ON sessions (ended_at);
CREATE INDEX sessions_project ON sessions (project);
CREATE INDEX sessions_parent ON sessions (parent) WHERE parent != '';
CREATE INDEX sessions_path ON sessions (path);

-- Lines: the block store. Raw bytes are written once and never changed; a
-- rewritten file starts a new generation and the old one stays. The other
-- columns are an index over the raw bytes and are rebuilt by reindex.
CREATE TABLE lines (
	session_id  TEXT COLLATE "C" NOT NULL,
	generation  INTEGER NOT NULL,
	no          INTEGER NOT NULL,
	"offset"    BIGINT NOT NULL,
	raw         BYTEA NOT NULL,
	type        TEXT NOT NULL DEFAULT '',
	uuid        TEXT NOT NULL DEFAULT '',
	parent_uuid TEXT NOT NULL DEFAULT '',
	timestamp   TIMESTAMPTZ,
	round_seq   INTEGER NOT NULL DEFAULT 0,
	status      TEXT NOT NULL,
	PRIMARY KEY (session_id, generation, no)
);

-- Rounds, blocks, messages and the search index: rebuilt from lines at will.
CREATE TABLE rounds (
	session_id    TEXT COLLATE "C" NOT NULL,
	seq           INTEGER NOT NULL,
	started_at    TIMESTAMPTZ,
	ended_at      TIMESTAMPTZ,
	first_line    INTEGER NOT NULL,
	last_line     INTEGER NOT NULL,
	user_preview  TEXT NOT NULL DEFAULT '',
	agent_preview TEXT NOT NULL DEFAULT '',
	tools         TEXT NOT NULL DEFAULT '',
	input_tokens          BIGINT NOT NULL DEFAULT 0,
	output_tokens         BIGINT NOT NULL DEFAULT 0,
	cache_read_tokens     BIGINT NOT NULL DEFAULT 0,
	cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, seq)
);
CREATE INDEX rounds_started_at ON rounds (started_at);

-- Only user-text and assistant-text blocks outside sidechains are searchable
-- (see cairn.BlockKind.Searchable). A tsvector holds at most 1 MB, so only
-- the first 100,000 characters of a block are indexed: at most 400 kB of
-- text, whose tsvector stays well under the limit. Search highlights the
-- same prefix (cairn.IndexChars).
CREATE TABLE blocks (
	id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	session_id TEXT COLLATE "C" NOT NULL,
	round_seq  INTEGER NOT NULL,
	line_no    INTEGER NOT NULL,
	idx        INTEGER NOT NULL,
	role       TEXT NOT NULL,
	kind       TEXT NOT NULL,
	timestamp  TIMESTAMPTZ,
	content    TEXT NOT NULL,
	tool_name  TEXT NOT NULL DEFAULT '',
	tool_id    TEXT NOT NULL DEFAULT '',
	agent_id   TEXT NOT NULL DEFAULT '',
	is_error   BOOLEAN NOT NULL DEFAULT FALSE,
	sidechain  BOOLEAN NOT NULL DEFAULT FALSE,
	message_id TEXT NOT NULL DEFAULT '',
	searchable BOOLEAN NOT NULL DEFAULT FALSE,
	-- The searchable prefix as cairn.SearchText gives it (CJK characters set
	-- apart, so each is a lexeme and a run of them a phrase); '' otherwise.
	search_text TEXT NOT NULL DEFAULT '',
	tsv        TSVECTOR GENERATED ALWAYS AS
		(CASE WHEN searchable THEN to_tsvector('simple'::regconfig, search_text) END) STORED
);
CREATE INDEX blocks_round ON blocks (session_id, round_seq);
CREATE INDEX blocks_agent ON blocks (agent_id) WHERE agent_id != '';
CREATE INDEX blocks_tsv ON blocks USING GIN (tsv) WHERE searchable;

CREATE TABLE messages (
	session_id TEXT COLLATE "C" NOT NULL,
	message_id TEXT NOT NULL,
	round_seq  INTEGER NOT NULL,
	model      TEXT NOT NULL DEFAULT '',
	input_tokens          BIGINT NOT NULL DEFAULT 0,
	output_tokens         BIGINT NOT NULL DEFAULT 0,
	cache_read_tokens     BIGINT NOT NULL DEFAULT 0,
	cache_creation_tokens BIGINT NOT NULL DEFAULT 0,
	PRIMARY KEY (session_id, message_id)
);
CREATE INDEX messages_round ON messages (session_id, round_seq);

-- Tags on rounds are mutable and live apart from rounds, so rebuilding a
-- round from its lines never loses them.
CREATE TABLE round_tags (
	session_id    TEXT COLLATE "C" NOT NULL,
	seq           INTEGER NOT NULL,
	engagement_id TEXT NOT NULL DEFAULT '',
	frame_id      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (session_id, seq)
);
CREATE INDEX round_tags_engagement ON round_tags (engagement_id) WHERE engagement_id != '';
CREATE INDEX round_tags_frame ON round_tags (frame_id) WHERE frame_id != '';
