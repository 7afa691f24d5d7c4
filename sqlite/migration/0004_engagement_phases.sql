-- Engagement phases: the named transitions of each engagement, mirrored
-- from .cairn/engagement.md. ended_at is '' while a phase runs.
CREATE TABLE engagement_phases (
	engagement_id TEXT NOT NULL,
	seq           INTEGER NOT NULL,
	name          TEXT NOT NULL,
	started_at    TEXT NOT NULL,
	ended_at      TEXT NOT NULL DEFAULT '',
	PRIMARY KEY (engagement_id, seq)
);
