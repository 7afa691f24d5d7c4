-- The store's own settings (cairn.KeepStore's keep setting: keep_days), and
-- the sessions dropped on purpose (`cairn prune`), remembered so that an
-- import of the same transcript skips it unless the file changed after.
CREATE TABLE settings (
	name  TEXT COLLATE "C" PRIMARY KEY,
	value TEXT NOT NULL
);
CREATE TABLE dropped_sessions (
	id         TEXT COLLATE "C" PRIMARY KEY,
	dropped_at TIMESTAMPTZ NOT NULL
);
