// Package reliability holds cairn's reliability suite, run on every store
// backend (SQLite always; PostgreSQL when $CAIRN_TEST_POSTGRES names a
// server, and required in CI):
//
//   - crash: a child process importing a growing transcript is killed at
//     random points; after each kill the store opens, the re-import
//     completes, and no line is duplicated or missing.
//   - concurrency: several processes import and re-import their own
//     growing transcripts into one store at once, and search and list it;
//     no update is lost and no busy, locked or serialization error reaches
//     them.
//   - bad input: the parsers' fuzz corpora and hostile lines go through the
//     whole import path and come back byte for byte.
//
// `go test ./internal/reliability` runs a short configuration of each;
// `go test ./internal/reliability -full` (or CAIRN_RELIABILITY=full) runs
// 100 kills and 8 processes for 60 seconds. Each test logs one summary line
// of its figures, and the suite prints one for all of them.
package reliability
