-- A transcript's bytes are stored once. Raw lines were S2-compressed
-- chunks, and every block's text was written a second time, whole, in
-- blocks.content: together 45 % of the raw history. Now:
--
-- chunks.codec says how a chunk's data and meta are compressed (0: S2,
-- as before; 1: zstd, what new chunks are written with, sqlite/codec.go);
--
-- blocks.span, when not NULL, says where in its stored line a block's
-- text is (sqlite/view.go): the block's content is then '' and is read
-- from the line, either the bytes themselves or a JSON string whose
-- value it is. A block whose text is not found in its line as either
-- (text joined from several parts, say) keeps it in content, span NULL.
--
-- Stores written before keep S2 chunks and inline text, both read as
-- ever, until `cairn migrate --in-place` rewrites them (DB.Relayout), one
-- session to a transaction, each line checked by its SHA-256; relaid
-- lists the sessions done, so a rewrite that was killed carries on.
ALTER TABLE chunks ADD COLUMN codec INTEGER NOT NULL DEFAULT 0;
ALTER TABLE blocks ADD COLUMN span INTEGER;
CREATE TABLE relaid (session_id TEXT PRIMARY KEY) WITHOUT ROWID;
