-- Surgery: a session exported by a surgical operation records every parent
-- (a merge has two) and the operation that cut it.
ALTER TABLE sessions ADD COLUMN parents TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN operation TEXT NOT NULL DEFAULT '';

-- Round usage is summed from messages by round at every inscription; without
-- this index a 5,000-round import spends a minute scanning messages.
CREATE INDEX IF NOT EXISTS messages_round ON messages (session_id, round_seq);
