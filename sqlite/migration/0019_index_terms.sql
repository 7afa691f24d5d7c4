-- Every term the search index holds, for a query's prefix to be searched
-- as the terms it begins (sqlite/terms.go); word, for a term the stemmer
-- would change again, a word it is the stem of, which a query can name
-- it by. Filled by the index's writes: for a store that has an index,
-- by the refill of migration 0020.
CREATE TABLE index_terms (term TEXT PRIMARY KEY, word TEXT) WITHOUT ROWID;
