-- A source's sum: the SHA-256 of every byte inscribed from its file, as
-- read (cairn.Source.Sum). A re-import hashes the file's stored prefix and
-- compares, so a same-size edit anywhere in it is seen and the file
-- inscribed as a new generation; the head and tail hashes alone saw only
-- the two ends. Sessions inscribed before have none until their next
-- commit and are checked by those two ends meanwhile.
ALTER TABLE sessions ADD COLUMN src_sum BLOB;
