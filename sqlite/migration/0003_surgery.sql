-- Surgery: a session exported by a surgical operation records every parent
-- (a merge has two) and the operation that cut it.
ALTER TABLE sessions ADD COLUMN parents TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN operation TEXT NOT NULL DEFAULT '';
