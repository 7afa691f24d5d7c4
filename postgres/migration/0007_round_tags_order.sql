-- A frame's or an engagement's rounds in (session, seq) order straight
-- from the index: its last rounds (a session start shows only those) are
-- read without reading or sorting the others.
DROP INDEX round_tags_frame;
CREATE INDEX round_tags_frame ON round_tags (frame_id, session_id, seq) WHERE frame_id != '';
DROP INDEX round_tags_engagement;
CREATE INDEX round_tags_engagement ON round_tags (engagement_id, session_id, seq) WHERE engagement_id != '';
