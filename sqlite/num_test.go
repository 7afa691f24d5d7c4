package sqlite_test

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestOpen_MigratesSessionNums opens a store in the layout before
// migration 0016 (its blocks, messages and staged blocks made again as
// migrations 0001 to 0013 left them, with rows of a session, of one whose
// import was lost before its session row was written, and a kind and a
// role without a code): after it, every block reads as it was written,
// the lost import's blocks stay staged, invisible, and are dropped by the
// next import of their session, and block ids are unchanged.
func TestOpen_MigratesSessionNums(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "cairn.db")
	MustOpenDBAt(t, path).Close()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range []string{
		`DROP TABLE blocks`, `DROP TABLE messages`, `DROP TABLE staged_blocks`, `DROP TABLE session_nums`,
		`DELETE FROM migrations WHERE name = 'migration/0016_session_nums.sql'`,
		`CREATE TABLE blocks (id INTEGER PRIMARY KEY, session_id TEXT NOT NULL, round_seq INTEGER NOT NULL, line_no INTEGER NOT NULL,
			idx INTEGER NOT NULL, role TEXT NOT NULL, kind TEXT NOT NULL, timestamp TEXT NOT NULL DEFAULT '', content TEXT NOT NULL,
			tool_name TEXT NOT NULL DEFAULT '', tool_id TEXT NOT NULL DEFAULT '', agent_id TEXT NOT NULL DEFAULT '',
			is_error INTEGER NOT NULL DEFAULT 0, sidechain INTEGER NOT NULL DEFAULT 0, message_id TEXT NOT NULL DEFAULT '',
			searchable INTEGER NOT NULL DEFAULT 0, step INTEGER NOT NULL DEFAULT 0, span INTEGER)`,
		`CREATE INDEX blocks_round ON blocks (session_id, round_seq)`,
		`CREATE INDEX blocks_agent ON blocks (agent_id) WHERE agent_id != ''`,
		`CREATE INDEX blocks_tool_use ON blocks (session_id, round_seq) WHERE kind = 'tool-use' AND sidechain = 0`,
		`CREATE TABLE messages (session_id TEXT NOT NULL, message_id TEXT NOT NULL, round_seq INTEGER NOT NULL, model TEXT NOT NULL DEFAULT '',
			input_tokens INTEGER NOT NULL DEFAULT 0, output_tokens INTEGER NOT NULL DEFAULT 0, cache_read_tokens INTEGER NOT NULL DEFAULT 0,
			cache_creation_tokens INTEGER NOT NULL DEFAULT 0, PRIMARY KEY (session_id, message_id))`,
		`CREATE INDEX messages_round ON messages (session_id, round_seq)`,
		`CREATE TABLE staged_blocks (session_id TEXT NOT NULL, token TEXT NOT NULL, lo INTEGER NOT NULL, hi INTEGER NOT NULL)`,
		`CREATE INDEX staged_blocks_session ON staged_blocks (session_id, lo)`,
		`INSERT INTO sessions (id, agent, lineage, round_count, created_at, updated_at) VALUES ('s1', 'claude-code', 'import', 1, '', '')`,
		`INSERT INTO rounds (session_id, seq, first_line, last_line) VALUES ('s1', 1, 1, 3)`,
		`INSERT INTO blocks (id, session_id, round_seq, line_no, idx, role, kind, timestamp, content, tool_name, searchable, step) VALUES
			(7, 's1', 1, 1, 0, 'user', 'user-text', '2026-01-02T03:04:05.678Z', 'hello', '', 1, 0),
			(8, 's1', 1, 2, 0, 'assistant', 'tool-use', '2026-01-02T03:04:06.000Z', '{"command":"ls"}', 'Bash', 1, 1),
			(9, 's1', 1, 3, 0, 'developer', 'hologram', '', 'from a newer client', '', 0, 1),
			(12, 'lost', 1, 1, 0, 'user', 'user-text', '1999-12-31T23:59:59.999Z', 'staged words', '', 0, 0)`,
		`INSERT INTO messages (session_id, message_id, round_seq, model, input_tokens) VALUES ('s1', 'm1', 1, 'opus', 5)`,
		`INSERT INTO staged_blocks VALUES ('lost', 'tok', 12, 12)`,
	} {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}

	db := MustOpenDBAt(t, path)
	st := stores(db)
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: "s1", WithBlocks: true, ToolCalls: true})
	if err != nil || len(rounds) != 1 {
		t.Fatalf("rounds after migrating: %v, %v", rounds, err)
	}
	type row struct {
		id        int64
		role      string
		kind      cairn.BlockKind
		timestamp time.Time
		content   string
	}
	var got []row
	for _, b := range rounds[0].Blocks {
		got = append(got, row{b.ID, b.Role, b.Kind, b.Timestamp, b.Content})
	}
	want := []row{
		{7, "user", cairn.UserText, time.Date(2026, 1, 2, 3, 4, 5, 678e6, time.UTC), "hello"},
		{8, "assistant", cairn.ToolUse, time.Date(2026, 1, 2, 3, 4, 6, 0, time.UTC), `{"command":"ls"}`},
		{9, "developer", "hologram", time.Time{}, "from a newer client"},
	}
	if len(got) != len(want) {
		t.Fatalf("blocks after migrating: %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] || !got[i].timestamp.Equal(want[i].timestamp) {
			t.Errorf("block %d after migrating: %+v, want %+v", i, got[i], want[i])
		}
	}
	if rounds[0].ToolCalls != 1 {
		t.Errorf("round 1 has %d tool calls, want 1", rounds[0].ToolCalls)
	}
	var messages, staged, lost int
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM messages m JOIN session_nums n ON n.num = m.session_num WHERE n.session_id = 's1' AND m.input_tokens = 5),
		(SELECT COUNT(*) FROM staged_blocks p JOIN session_nums n ON n.num = p.session_num WHERE n.session_id = 'lost' AND p.lo = 12),
		(SELECT COUNT(*) FROM blocks b JOIN session_nums n ON n.num = b.session_num WHERE n.session_id = 'lost')`).Scan(&messages, &staged, &lost); err != nil {
		t.Fatal(err)
	}
	if messages != 1 || staged != 1 || lost != 1 {
		t.Fatalf("after migrating: %d messages of s1, %d staged ranges and %d blocks of the lost import; want 1 each", messages, staged, lost)
	}
	if err := sqlite.NewInscriptionStore(db).DropStaged(ctx, "lost"); err != nil {
		t.Fatal(err)
	}
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM staged_blocks) + (SELECT COUNT(*) FROM blocks WHERE id = 12)`).Scan(&lost); err != nil || lost != 0 {
		t.Fatalf("the lost import's blocks after the next import: %d rows, %v", lost, err)
	}
}
