-- The store's own settings (cairn.KeepStore's keep setting: keep_days), and
-- the sessions dropped on purpose (`cairn prune`), remembered so that an
-- import of the same transcript skips it unless the file changed after.
-- Dropping a session is the one delete of raw lines, asked for by a
-- person; the lines are gone, the id and the time stay.
CREATE TABLE settings (
	name  TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE dropped_sessions (
	id         TEXT PRIMARY KEY,
	dropped_at TEXT NOT NULL
);
