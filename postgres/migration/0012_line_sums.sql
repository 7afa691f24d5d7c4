-- Each raw line's CRC-32C (Castagnoli), written with it and checked
-- whenever it is read: bytes damaged in the table (a disk, a restore, a
-- hand's UPDATE) are named by session and line instead of read back as
-- the transcript. SQLite's compressed chunks carry their own checksums;
-- a bytea does not. Lines stored before have none and are read as they
-- are.
ALTER TABLE lines ADD COLUMN crc BIGINT;
