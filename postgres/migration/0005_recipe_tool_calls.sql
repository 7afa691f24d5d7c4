-- A surgical export records its recipe (what it was cut with), so a second
-- export of the same cut is found in the store, whoever wrote the first.
ALTER TABLE sessions ADD COLUMN recipe TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_recipe ON sessions (recipe) WHERE recipe != '';

-- Tool calls of a main chain, counted per round and per session from this
-- index alone (no block is read).
CREATE INDEX blocks_tool_use ON blocks (session_id, round_seq) WHERE kind = 'tool-use' AND NOT sidechain;
