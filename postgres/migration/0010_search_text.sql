-- A block's searchable text was stored twice beside its content: in
-- search_text, and as the tsvector computed from it. The tsvector is all
-- search needs. tsv becomes a plain column that a trigger fills as a row
-- is inserted (COPY fires it too), from the search_text the row brings,
-- which it then empties: new rows keep the text once, in content.
--
-- Rows inserted before keep their search_text until `cairn migrate
-- --in-place` empties it (DB.Relayout), a range of blocks to a
-- transaction, so that a killed run leaves nothing half done; a plain
-- VACUUM then lets later imports reuse the space.
ALTER TABLE blocks ALTER COLUMN tsv DROP EXPRESSION;

CREATE FUNCTION cairn_blocks_tsv() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	NEW.tsv := CASE WHEN NEW.searchable THEN to_tsvector('simple'::regconfig, NEW.search_text) END;
	NEW.search_text := '';
	RETURN NEW;
END
$$;

CREATE TRIGGER blocks_tsv BEFORE INSERT ON blocks FOR EACH ROW EXECUTE FUNCTION cairn_blocks_tsv();
