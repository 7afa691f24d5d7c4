-- Frames: the task tree. n orders frames by creation and numbers the IDs
-- the store assigns ('f' || n). version counts writes: an update must name
-- the version it read (optimistic concurrency), which is what makes
-- claiming atomic.
CREATE TABLE frames (
	n                          INTEGER PRIMARY KEY,
	id                         TEXT COLLATE "C" NOT NULL UNIQUE,
	parent_id                  TEXT COLLATE "C" NOT NULL DEFAULT '',
	title                      TEXT NOT NULL,
	success_criteria           TEXT NOT NULL,
	success_criteria_compacted TEXT NOT NULL DEFAULT '',
	status                     TEXT NOT NULL,
	results                    TEXT NOT NULL DEFAULT '',
	results_compacted          TEXT NOT NULL DEFAULT '',
	artifacts                  JSONB NOT NULL DEFAULT '[]',
	decisions                  JSONB NOT NULL DEFAULT '[]',
	depends_on                 JSONB NOT NULL DEFAULT '[]',
	owner                      TEXT NOT NULL DEFAULT '',
	version                    INTEGER NOT NULL DEFAULT 1,
	created_at                 TIMESTAMPTZ NOT NULL,
	updated_at                 TIMESTAMPTZ NOT NULL,
	started_at                 TIMESTAMPTZ,
	ended_at                   TIMESTAMPTZ
);
CREATE INDEX frames_parent ON frames (parent_id);
CREATE INDEX frames_status ON frames (status);

-- The mission (one row) and its phases, newest last. outputs lists the
-- files earlier phases produced.
CREATE TABLE missions (
	id         INTEGER PRIMARY KEY CHECK (id = 1),
	text       TEXT NOT NULL,
	workspace  TEXT NOT NULL DEFAULT '',
	progress   TEXT NOT NULL DEFAULT '',
	updated_at TIMESTAMPTZ NOT NULL
);

CREATE TABLE phases (
	seq        INTEGER PRIMARY KEY,
	name       TEXT NOT NULL,
	task       TEXT NOT NULL,
	outputs    JSONB NOT NULL DEFAULT '[]',
	reason     TEXT NOT NULL,
	started_at TIMESTAMPTZ NOT NULL
);
