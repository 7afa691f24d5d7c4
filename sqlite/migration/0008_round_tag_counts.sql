-- How many rounds of each session carry each frame and each engagement,
-- kept by triggers in the transaction that changes a tag. The SessionStart
-- hook says how many rounds its frame holds beyond those it shows: counting
-- them from round_tags_frame stepped through every entry (3,400 entries
-- and 47 pages for the frame of one long session, a tenth of the hook).
-- kind is the round_tags column the tag is in.
CREATE TABLE round_tag_counts (
	kind       TEXT NOT NULL,
	tag        TEXT NOT NULL,
	session_id TEXT NOT NULL,
	n          INTEGER NOT NULL,
	PRIMARY KEY (kind, tag, session_id)
) WITHOUT ROWID;

INSERT INTO round_tag_counts
	SELECT 'frame_id', frame_id, session_id, COUNT(*) FROM round_tags WHERE frame_id != '' GROUP BY frame_id, session_id;
INSERT INTO round_tag_counts
	SELECT 'engagement_id', engagement_id, session_id, COUNT(*) FROM round_tags WHERE engagement_id != '' GROUP BY engagement_id, session_id;

CREATE TRIGGER round_tags_count_insert AFTER INSERT ON round_tags BEGIN
	INSERT INTO round_tag_counts SELECT 'frame_id', NEW.frame_id, NEW.session_id, 1 WHERE NEW.frame_id != ''
		ON CONFLICT DO UPDATE SET n = n + 1;
	INSERT INTO round_tag_counts SELECT 'engagement_id', NEW.engagement_id, NEW.session_id, 1 WHERE NEW.engagement_id != ''
		ON CONFLICT DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER round_tags_count_delete AFTER DELETE ON round_tags BEGIN
	UPDATE round_tag_counts SET n = n - 1
		WHERE (kind, tag, session_id) IN (VALUES ('frame_id', OLD.frame_id, OLD.session_id), ('engagement_id', OLD.engagement_id, OLD.session_id));
	DELETE FROM round_tag_counts
		WHERE (kind, tag, session_id) IN (VALUES ('frame_id', OLD.frame_id, OLD.session_id), ('engagement_id', OLD.engagement_id, OLD.session_id)) AND n <= 0;
END;

CREATE TRIGGER round_tags_count_update AFTER UPDATE OF session_id, engagement_id, frame_id ON round_tags BEGIN
	UPDATE round_tag_counts SET n = n - 1
		WHERE (kind, tag, session_id) IN (VALUES ('frame_id', OLD.frame_id, OLD.session_id), ('engagement_id', OLD.engagement_id, OLD.session_id));
	DELETE FROM round_tag_counts
		WHERE (kind, tag, session_id) IN (VALUES ('frame_id', OLD.frame_id, OLD.session_id), ('engagement_id', OLD.engagement_id, OLD.session_id)) AND n <= 0;
	INSERT INTO round_tag_counts SELECT 'frame_id', NEW.frame_id, NEW.session_id, 1 WHERE NEW.frame_id != ''
		ON CONFLICT DO UPDATE SET n = n + 1;
	INSERT INTO round_tag_counts SELECT 'engagement_id', NEW.engagement_id, NEW.session_id, 1 WHERE NEW.engagement_id != ''
		ON CONFLICT DO UPDATE SET n = n + 1;
END;
