package postgres

import (
	"context"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// StatsStore implements [cairn.StatsStore].
type StatsStore struct{ db *DB }

// NewStatsStore returns a StatsStore over db.
func NewStatsStore(db *DB) *StatsStore { return &StatsStore{db: db} }

var _ cairn.StatsStore = (*StatsStore)(nil)

// Stats implements [cairn.StatsStore].
func (s *StatsStore) Stats(ctx context.Context, withParts bool) (_ *cairn.StoreStats, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	st := &cairn.StoreStats{Location: s.db.name, Backend: "postgres", ByAgent: map[string]int{}}
	rows, err := tx.Query(ctx, `SELECT agent, lineage = $1, COUNT(*) FROM sessions GROUP BY 1, 2`, cairn.LineageSubagent)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var agent string
		var sub bool
		var n int
		if err := rows.Scan(&agent, &sub, &n); err != nil {
			rows.Close()
			return nil, err
		}
		st.ByAgent[agent] += n
		st.Sessions += n
		if sub {
			st.Subagents += n
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var oldest, newest *time.Time
	if err := tx.QueryRow(ctx, `
		SELECT COALESCE(SUM(round_count), 0), COALESCE(SUM(src_offset), 0),
			MIN(COALESCE(ended_at, started_at, updated_at)), MAX(COALESCE(ended_at, started_at, updated_at))
		FROM sessions`).Scan(&st.Rounds, &st.RawBytes, &oldest, &newest); err != nil {
		return nil, err
	}
	if oldest != nil {
		st.Oldest, st.Newest = oldest.UTC(), newest.UTC()
	}
	var keep string
	if err := tx.QueryRow(ctx, `SELECT (SELECT COUNT(*) FROM blocks), (SELECT COUNT(*) FROM lines),
		(SELECT COUNT(*) FROM dropped_sessions d WHERE NOT EXISTS (SELECT 1 FROM sessions s WHERE s.id = d.id)),
		COALESCE((SELECT value FROM settings WHERE name = $1), '0')`, keepDaysSetting).
		Scan(&st.Blocks, &st.Lines, &st.Dropped, &keep); err != nil {
		return nil, err
	}
	st.KeepDays, _ = strconv.Atoi(keep)
	rows, err = tx.Query(ctx, `SELECT c.relname, pg_total_relation_size(c.oid) FROM pg_class c
		WHERE c.relkind = 'r' AND c.relnamespace = current_schema()::regnamespace`)
	if err != nil {
		return nil, err
	}
	sums := map[string]int64{}
	for rows.Next() {
		var name string
		var n int64
		if err := rows.Scan(&name, &n); err != nil {
			rows.Close()
			return nil, err
		}
		st.Bytes += n
		sums[partOf(name)] += n
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if withParts {
		for name, n := range sums {
			st.Parts = append(st.Parts, cairn.StorePart{Name: name, Bytes: n})
		}
		sort.Slice(st.Parts, func(i, j int) bool {
			if st.Parts[i].Bytes != st.Parts[j].Bytes {
				return st.Parts[i].Bytes > st.Parts[j].Bytes
			}
			return st.Parts[i].Name < st.Parts[j].Name
		})
	}
	return st, nil
}

// partOf names the part of the store a table belongs to (its indexes,
// the search index among them, counted with it).
func partOf(table string) string {
	switch {
	case table == "lines":
		return "raw lines"
	case table == "blocks":
		return "blocks and search index"
	case table == "rounds", table == "messages", strings.HasPrefix(table, "round_tag"):
		return "rounds"
	case table == "sessions":
		return "sessions"
	}
	return "other"
}
