-- Frames remember the session that created them (pushed or planned):
-- a Claude Code session's uuid, or '' for frames from before, or from an
-- actor that named no session.
ALTER TABLE frames ADD COLUMN session_id TEXT NOT NULL DEFAULT '';
CREATE INDEX frames_session ON frames (session_id);
