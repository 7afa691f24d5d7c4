package cairn

import (
	"context"
	"time"
)

// StoreStats is what a store holds and what it takes on disk.
type StoreStats struct {
	Location string `json:"location"` // the file, or the PostgreSQL server and schema, without credentials
	Backend  string `json:"backend"`  // "sqlite" or "postgres"

	Sessions  int            `json:"sessions"`  // every stored session, sub-agents included
	Subagents int            `json:"subagents"` // of which sub-agents
	ByAgent   map[string]int `json:"by_agent"`  // sessions by the harness that wrote them
	Rounds    int64          `json:"rounds"`
	Blocks    int64          `json:"blocks"`
	Lines     int64          `json:"lines"`     // raw lines stored, every generation
	RawBytes  int64          `json:"raw_bytes"` // the transcripts' bytes those lines hold

	// Oldest and Newest are the earliest and latest last activity of a
	// stored session ([Session.LastActive]); zero in an empty store.
	Oldest time.Time `json:"oldest,omitzero"`
	Newest time.Time `json:"newest,omitzero"`

	// Bytes is what the store takes on disk (SQLite: the file and its
	// write-ahead log; PostgreSQL: the schema's tables and indexes), and
	// Parts where those bytes go, largest first.
	Bytes int64       `json:"bytes"`
	Parts []StorePart `json:"parts,omitempty"`

	KeepDays int `json:"keep_days"` // the keep setting ([KeepStore]); 0 keeps everything
	Dropped  int `json:"dropped"`   // sessions dropped on purpose, remembered so imports skip them
}

// A StorePart is one part of a store's bytes on disk: the raw lines, the
// blocks, the search index, or the rest.
type StorePart struct {
	Name  string `json:"name"`
	Bytes int64  `json:"bytes"`
}

// A StatsStore says what a store holds. With parts it also measures where
// its bytes go ([StoreStats.Parts]), which may read the whole store
// (SQLite's page census): seconds on a store of gigabytes.
type StatsStore interface {
	Stats(ctx context.Context, parts bool) (*StoreStats, error)
}
