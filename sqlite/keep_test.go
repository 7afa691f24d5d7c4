package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

// TestDropSessions_EveryTable: after a drop, no table with a session_id
// column, or a session_num one (session_nums.num), holds a row of the
// dropped session (frames excepted: they are the workspace's), whatever
// tables later migrations add, and the search index holds none of its
// entries.
func TestDropSessions_EveryTable(t *testing.T) {
	defer sqlite.SetStaging(2, 0)()
	ctx := context.Background()
	db := MustOpenDB(t)
	st := stores(db)
	for _, id := range []string{"dropped", "kept"} {
		storetest.MustInscribe(t, st, inscription(id))
		if err := st.Tags.TagRounds(ctx, id, []int{1}, "e1", "f1"); err != nil {
			t.Fatal(err)
		}
	}
	raw, err := sql.Open("sqlite", db.Path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	nums := map[string]int{}
	for _, id := range []string{"dropped", "kept"} {
		var n int
		if err := raw.QueryRowContext(ctx, `SELECT num FROM session_nums WHERE session_id = ?`, id).Scan(&n); err != nil {
			t.Fatalf("%s's number: %v", id, err)
		}
		nums[id] = n
	}
	if err := st.Keep.DropSessions(ctx, []string{"dropped"}, time.Now()); err != nil {
		t.Fatal(err)
	}
	rows, err := raw.QueryContext(ctx, `SELECT m.name, c.name FROM sqlite_master m, pragma_table_info(m.name) c
		WHERE m.type = 'table' AND c.name IN ('session_id', 'session_num') AND m.name != 'frames'`)
	if err != nil {
		t.Fatal(err)
	}
	var tables, columns []string
	for rows.Next() {
		var name, column string
		if err := rows.Scan(&name, &column); err != nil {
			t.Fatal(err)
		}
		tables, columns = append(tables, name), append(columns, column)
	}
	rows.Close()
	if len(tables) < 8 || !slices.Contains(columns, "session_num") {
		t.Fatalf("tables with a session_id or session_num: %q", tables)
	}
	for i, table := range tables {
		var dropped, kept int
		q := fmt.Sprintf(`SELECT COUNT(*) FILTER (WHERE session_id = 'dropped'), COUNT(*) FILTER (WHERE session_id = 'kept') FROM %q`, table)
		if columns[i] == "session_num" {
			q = fmt.Sprintf(`SELECT COUNT(*) FILTER (WHERE session_num = %d), COUNT(*) FILTER (WHERE session_num = %d) FROM %q`, nums["dropped"], nums["kept"], table)
		}
		if err := raw.QueryRowContext(ctx, q).Scan(&dropped, &kept); err != nil {
			t.Fatal(err)
		}
		if dropped != 0 {
			t.Errorf("%s holds %d rows of the dropped session", table, dropped)
		}
		if kept == 0 && table != "staged_blocks" && table != "relaid" { // hold rows only for a while
			t.Errorf("%s lost the kept session's rows", table)
		}
	}
	var entries int
	if err := raw.QueryRowContext(ctx, `SELECT COUNT(*) FROM blocks_fts WHERE blocks_fts MATCH 'dropped'`).Scan(&entries); err != nil {
		t.Fatal(err)
	} else if entries != 0 {
		t.Errorf("the search index holds %d entries of the dropped session", entries)
	}
}

// inscription is a session of one round whose words name it.
func inscription(id string) *cairn.Inscription {
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for no, text := range []string{"prompt of " + id, "answer of " + id} {
		raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", no+1, text)
		in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: no + 1, Offset: in.Source.Offset, Raw: []byte(raw),
			Type: "user", Timestamp: at, RoundSeq: 1, Status: cairn.LineOK})
		in.Source.Offset += int64(len(raw))
		in.Source.Lines++
		in.Blocks = append(in.Blocks, &cairn.Block{SessionID: id, RoundSeq: 1, LineNo: no + 1, Role: "user",
			Kind: cairn.UserText, Timestamp: at, Content: text, MessageID: fmt.Sprintf("%s-m%d", id, no)})
	}
	in.Rounds = []*cairn.Round{{SessionID: id, Seq: 1, StartedAt: at, EndedAt: at, FirstLine: 1, LastLine: 2}}
	in.Messages = []*cairn.MessageUsage{{MessageID: id + "-m1", RoundSeq: 1, Usage: cairn.Usage{Input: 1}}}
	return in
}
