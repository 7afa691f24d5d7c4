package opencodetest_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"

	_ "modernc.org/sqlite"
)

// TestImport has each release write a session of two prompts (write, bash;
// read, edit), imports it after the first and again after the second, and
// checks the rounds, steps and tool calls cairn built, that the second
// import only appended, and that every column and field of every session,
// message and part in the client's store is in the stored lines.
func TestImport(t *testing.T) {
	for _, c := range opencodetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) { importCase(t, newRig(t, c)) })
	}
}

func importCase(t *testing.T, r *rig) {
	ctx := context.Background()
	r.home.Run(t, r.client.Bin, "run", "make the notes file")
	id := r.newest(t)
	f := r.sync(t, id)
	if f.Status != "new" || f.Rounds != 1 {
		t.Fatalf("first import: %+v, want a new session of 1 round", f)
	}
	r.home.Run(t, r.client.Bin, "run", "--session", id, "fix the notes")
	if got := r.newest(t); got != id {
		t.Fatalf("--session %s continued %s", id, got)
	}
	f = r.sync(t, id)
	if f.Status != "appended" || f.Rounds != 2 {
		t.Fatalf("second import: %+v, want 2 rounds appended", f)
	}
	s, err := r.st.Sessions.FindSessionByID(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if s.Agent != cairn.AgentOpencode || s.Version != r.client.Version || s.Project != r.home.Cwd {
		t.Errorf("session: agent %q version %q project %q", s.Agent, s.Version, s.Project)
	}
	want := [][]string{{"write", "bash"}, {"read", "edit"}}
	for seq := 1; seq <= 2; seq++ {
		round, err := r.st.Rounds.FindRound(ctx, id, seq)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(round.Tools, want[seq-1]) {
			t.Errorf("round %d tools %v, want %v", seq, round.Tools, want[seq-1])
		}
		steps := cairn.Steps(round.Blocks, round.LastLine)
		if len(steps) != 3 {
			t.Errorf("round %d: %d steps, want 3 (one per model call)", seq, len(steps))
		}
		pairs := map[string]int{}
		for _, b := range round.Blocks {
			switch b.Kind {
			case cairn.ToolUse:
				pairs[b.ToolID]++
			case cairn.ToolResult:
				pairs[b.ToolID]--
				if b.IsError {
					t.Errorf("round %d: %s failed: %s", seq, b.ToolName, b.Content)
				}
			}
		}
		for call, n := range pairs {
			if n != 0 {
				t.Errorf("round %d: call %s without its result", seq, call)
			}
		}
	}
	lines, err := r.st.Lines.FindLines(ctx, id, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := checkLossless(t, r.home.DataDir(), id, lines)
	t.Logf("%s %s: %d lines, every one of %d documents in the client's store found whole", r.client.Name, r.client.Version, len(lines), n)
}

// checkLossless checks that every document of the session in the client's
// store (every column of its rows; every field of its files) is in the
// last stored line of its id, and returns how many it checked.
func checkLossless(t *testing.T, dataDir, id string, lines []*cairn.Line) int {
	t.Helper()
	last := map[string]map[string]any{}
	for _, l := range lines {
		var rec map[string]any
		if err := json.Unmarshal(l.Raw, &rec); err != nil {
			t.Fatalf("line %d: %v", l.No, err)
		}
		last[rec["opencode"].(string)+" "+rec["id"].(string)] = rec
	}
	n := 0
	check := func(kind, docID string, row map[string]any, data any) {
		t.Helper()
		n++
		rec, ok := last[kind+" "+docID]
		if !ok {
			t.Errorf("%s %s: not stored", kind, docID)
			return
		}
		if !reflect.DeepEqual(rec["data"], data) {
			t.Errorf("%s %s: data\n got %v\nwant %v", kind, docID, rec["data"], data)
		}
		got, _ := rec["row"].(map[string]any)
		for col, v := range row {
			if !reflect.DeepEqual(got[col], v) {
				t.Errorf("%s %s: column %s = %v, want %v", kind, docID, col, got[col], v)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, opencode.DBName)); err == nil {
		db, err := sql.Open("sqlite", "file:"+filepath.Join(dataDir, opencode.DBName)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		for _, q := range []struct{ kind, query string }{
			{opencode.KindSession, `SELECT * FROM session WHERE id = ?`},
			{opencode.KindMessage, `SELECT * FROM message WHERE session_id = ?`},
			{opencode.KindPart, `SELECT * FROM part WHERE session_id = ?`},
		} {
			rs, err := db.Query(q.query, id)
			if err != nil {
				t.Fatal(err)
			}
			cols, _ := rs.Columns()
			for rs.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for i := range vals {
					ptrs[i] = &vals[i]
				}
				if err := rs.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				row := map[string]any{}
				var data any
				for i, c := range cols {
					raw, _ := json.Marshal(vals[i])
					var v any
					_ = json.Unmarshal(raw, &v)
					if c == "data" {
						_ = json.Unmarshal([]byte(v.(string)), &data)
						continue
					}
					row[c] = v
				}
				check(q.kind, row["id"].(string), row, data)
			}
			rs.Close()
		}
		return n
	}
	storage := filepath.Join(dataDir, opencode.StorageDir)
	files, _ := filepath.Glob(filepath.Join(storage, "session", "*", id+".json"))
	msgs, _ := filepath.Glob(filepath.Join(storage, "message", id, "*.json"))
	files = append(files, msgs...)
	for _, m := range msgs {
		parts, _ := filepath.Glob(filepath.Join(storage, "part", filepath.Base(m[:len(m)-5]), "*.json"))
		files = append(files, parts...)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var data map[string]any
		if err := json.Unmarshal(b, &data); err != nil {
			t.Fatal(err)
		}
		kind := filepath.Base(filepath.Dir(filepath.Dir(f)))
		check(kind, data["id"].(string), nil, data)
	}
	return n
}
