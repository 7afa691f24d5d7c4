-- Engagement phases: the named transitions of each engagement, mirrored
-- from .cairn/engagement.md. ended_at is NULL while a phase runs.
CREATE TABLE engagement_phases (
	engagement_id TEXT NOT NULL,
	seq           INTEGER NOT NULL,
	name          TEXT NOT NULL,
	started_at    TIMESTAMPTZ NOT NULL,
	ended_at      TIMESTAMPTZ,
	PRIMARY KEY (engagement_id, seq)
);
