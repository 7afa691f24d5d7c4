-- Search finds what was done as well as what was said: tool calls (the
-- tool's name and its input's values) and tool results join user and
-- assistant text in the index (cairn.BlockKind.Searchable), each as
-- cairn.IndexText gives it, its first 100,000 characters. Each block
-- records its step within its round (cairn.StepCounter), so a hit names
-- the ROUND.STEP that inject takes.
--
-- The index is rebuilt here: porter stemming under unicode61, so that
-- tests finds testing (search adds prefix matching: auth finds
-- authentication), and contentless, since search reads snippets from
-- blocks.content and a second copy of every indexed block, now tool output
-- too, would about double the store. contentless_delete lets deleteIndex
-- remove entries by rowid.
--
-- Blocks inscribed before this migration keep step 0 (the round's
-- prompt, so a hit names the round) until `cairn reindex` numbers them.
ALTER TABLE blocks ADD COLUMN step INTEGER NOT NULL DEFAULT 0;

DROP TABLE blocks_fts;
CREATE VIRTUAL TABLE blocks_fts USING fts5 (
	content,
	content = '',
	contentless_delete = 1,
	tokenize = 'porter unicode61 remove_diacritics 2'
);

UPDATE blocks SET searchable = 1
	WHERE kind IN ('tool-use', 'tool-result') AND sidechain = 0 AND searchable = 0;
INSERT INTO blocks_fts (rowid, content)
	SELECT id, cairn_index_text(kind, tool_name, content) FROM blocks WHERE searchable = 1;
