package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"cairn"

	_ "modernc.org/sqlite" // registers "sqlite"
)

// DBName is the file of opencode's SQLite store (1.2 onwards) in its data
// folder; StorageDir the folder of the JSON storage era (up to 1.1: one
// file per session, message and part).
const (
	DBName     = "opencode.db"
	StorageDir = "storage"
)

// DataDir returns opencode's data folder: $XDG_DATA_HOME/opencode, else
// ~/.local/share/opencode under home.
func DataDir(getenv func(string) string, home string) string {
	if d := getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "opencode")
	}
	return filepath.Join(home, ".local", "share", "opencode")
}

// IsDataDir reports whether dir is an opencode data folder: it holds
// opencode.db or storage/session.
func IsDataDir(dir string) bool {
	if fi, err := os.Stat(filepath.Join(dir, DBName)); err == nil && fi.Mode().IsRegular() {
		return true
	}
	fi, err := os.Stat(filepath.Join(dir, StorageDir, "session"))
	return err == nil && fi.IsDir()
}

// A Log is one session's records in canonical order: the session, then
// each message (by creation time, then id) followed by its parts (by id).
type Log struct {
	ID      string
	Session *Record
	Items   []*Record // messages and parts
	// Settled is how many of Items are finished: the rest belong to a
	// reply still being written, or a prompt not yet answered. A session
	// untouched for [Quiet] is settled whole: its client is gone.
	Settled int
	// Mark changes whenever a row of the session does (SQLite era; "" for
	// the JSON files, read whole each time): its rows' counts and latest
	// update times, and whether it was quiet.
	Mark string
	// Skipped reports a session whose Mark the caller already had: its
	// documents were not read.
	Skipped bool
}

// Quiet is how long a session must go untouched for its last reply to
// count as finished, whatever it says: a client that crashed mid-reply
// never completes it.
const Quiet = 10 * time.Minute

// ReadStore reads every session of an opencode data folder, from its
// SQLite store (opened read-only) and from JSON storage files that no
// SQLite session has taken over.
func ReadStore(ctx context.Context, dir string) ([]*Log, error) {
	return readStore(ctx, dir, time.Now(), nil)
}

// readStore reads the store as ReadStore does, but not the documents of a
// session for which known returns true given its id and Mark.
func readStore(ctx context.Context, dir string, now time.Time, known func(id, mark string) bool) ([]*Log, error) {
	var logs []*Log
	seen := map[string]bool{}
	if _, err := os.Stat(filepath.Join(dir, DBName)); err == nil {
		l, err := readDB(ctx, filepath.Join(dir, DBName), now, known)
		if err != nil {
			return nil, err
		}
		for _, s := range l {
			seen[s.ID] = true
		}
		logs = append(logs, l...)
	}
	l, err := readStorage(filepath.Join(dir, StorageDir))
	if err != nil {
		return nil, err
	}
	for _, s := range l {
		if seen[s.ID] {
			continue
		}
		if known != nil && known(s.ID, "") {
			s.Skipped = true
		}
		logs = append(logs, s)
	}
	for _, l := range logs {
		l.Settled = settled(l.Items)
		if quiet(l.Session, now) {
			l.Settled = len(l.Items)
		}
	}
	return logs, nil
}

// quiet reports whether a session was last updated more than [Quiet]
// before now.
func quiet(s *Record, now time.Time) bool {
	t := s.intCol("time_updated")
	if s.Row == nil {
		var d struct {
			Time struct {
				Updated int64 `json:"updated"`
			} `json:"time"`
		}
		_ = json.Unmarshal(s.Data, &d)
		t = d.Time.Updated
	}
	return t > 0 && now.Sub(time.UnixMilli(t)) > Quiet
}

// openDB opens opencode's SQLite store; read-only unless write.
func openDB(path string, write bool) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	if !write {
		q.Set("mode", "ro")
	} else {
		q.Add("_pragma", "foreign_keys(1)")
		q.Set("_txlock", "immediate")
	}
	return sql.Open("sqlite", "file:"+path+"?"+q.Encode())
}

func readDB(ctx context.Context, path string, now time.Time, known func(id, mark string) bool) ([]*Log, error) {
	db, err := openDB(path, false)
	if err != nil {
		return nil, storeError(path, err)
	}
	defer db.Close()
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, storeError(path, err)
	}
	defer tx.Rollback()
	sessions, err := rows(ctx, tx, KindSession, `SELECT * FROM session ORDER BY time_created, id`)
	if err != nil {
		return nil, storeError(path, err)
	}
	marks := map[string]string{}
	rs, err := tx.QueryContext(ctx, `SELECT s.id,
		(SELECT count(*) || '.' || ifnull(max(time_updated), 0) FROM message WHERE session_id = s.id),
		(SELECT count(*) || '.' || ifnull(max(time_updated), 0) FROM part WHERE session_id = s.id)
		FROM session s`)
	if err != nil {
		return nil, storeError(path, err)
	}
	for rs.Next() {
		var id, m, p string
		if err := rs.Scan(&id, &m, &p); err != nil {
			rs.Close()
			return nil, storeError(path, err)
		}
		marks[id] = m + "/" + p
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return nil, storeError(path, err)
	}
	var logs []*Log
	for _, s := range sessions {
		l := &Log{ID: s.ID, Session: s}
		l.Mark = fmt.Sprintf("%d/%s/%v", s.intCol("time_updated"), marks[s.ID], quiet(s, now))
		if known != nil && known(s.ID, l.Mark) {
			l.Skipped = true
			logs = append(logs, l)
			continue
		}
		msgs, err := rows(ctx, tx, KindMessage, `SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id`, s.ID)
		if err != nil {
			return nil, storeError(path, err)
		}
		parts, err := rows(ctx, tx, KindPart, `SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id`, s.ID)
		if err != nil {
			return nil, storeError(path, err)
		}
		byMsg := map[string][]*Record{}
		for _, p := range parts {
			byMsg[p.col("message_id")] = append(byMsg[p.col("message_id")], p)
		}
		for _, m := range msgs {
			l.Items = append(l.Items, m)
			l.Items = append(l.Items, byMsg[m.ID]...)
		}
		logs = append(logs, l)
	}
	return logs, nil
}

func storeError(path string, err error) error {
	return &cairn.Error{Code: cairn.EINVALID, Message: fmt.Sprintf("Cannot read opencode's store %s: %v.", path, err), Err: err}
}

// rows reads a query's rows as records of kind: the data column as Data
// (kept as a string column if it is not JSON), the others in Row.
func rows(ctx context.Context, tx *sql.Tx, kind, query string, args ...any) ([]*Record, error) {
	rs, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out []*Record
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, err
		}
		r := &Record{Kind: kind, Row: map[string]json.RawMessage{}}
		for i, c := range cols {
			v := vals[i]
			if b, ok := v.([]byte); ok {
				v = string(b)
			}
			if s, ok := v.(string); ok && c == "data" && json.Valid([]byte(s)) {
				r.Data = compact([]byte(s))
				continue
			}
			raw, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			r.Row[c] = raw
		}
		r.ID = r.col("id")
		out = append(out, r)
	}
	return out, rs.Err()
}

func compact(b []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, b) != nil {
		return b
	}
	return buf.Bytes()
}

// readStorage reads the JSON storage era: storage/session/<project>/<id>.json,
// storage/message/<session>/<id>.json, storage/part/<message>/<id>.json.
func readStorage(dir string) ([]*Log, error) {
	files, err := filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	if err != nil || len(files) == 0 {
		return nil, err
	}
	var logs []*Log
	for _, f := range files {
		s, err := readFile(f, KindSession)
		if err != nil {
			return nil, err
		}
		l := &Log{ID: s.ID, Session: s}
		msgFiles, _ := filepath.Glob(filepath.Join(dir, "message", s.ID, "*.json"))
		var msgs []*Record
		for _, mf := range msgFiles {
			m, err := readFile(mf, KindMessage)
			if err != nil {
				return nil, err
			}
			msgs = append(msgs, m)
		}
		sort.SliceStable(msgs, func(i, j int) bool {
			ti, tj := created(msgs[i]), created(msgs[j])
			if ti != tj {
				return ti < tj
			}
			return msgs[i].ID < msgs[j].ID
		})
		for _, m := range msgs {
			l.Items = append(l.Items, m)
			partFiles, _ := filepath.Glob(filepath.Join(dir, "part", m.ID, "*.json"))
			sort.Strings(partFiles)
			for _, pf := range partFiles {
				p, err := readFile(pf, KindPart)
				if err != nil {
					return nil, err
				}
				l.Items = append(l.Items, p)
			}
		}
		logs = append(logs, l)
	}
	sort.SliceStable(logs, func(i, j int) bool { return created(logs[i].Session) < created(logs[j].Session) })
	return logs, nil
}

func readFile(path, kind string) (*Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, cairn.Errorf(cairn.EINVALID, "%s: not JSON", path)
	}
	r := &Record{Kind: kind, Data: compact(b)}
	var id struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(b, &id)
	r.ID = id.ID
	if r.ID == "" {
		r.ID = strings.TrimSuffix(filepath.Base(path), ".json")
	}
	return r, nil
}

func created(r *Record) int64 {
	if r.Row != nil {
		return r.intCol("time_created")
	}
	var t struct {
		Time struct {
			Created int64 `json:"created"`
		} `json:"time"`
	}
	_ = json.Unmarshal(r.Data, &t)
	return t.Time.Created
}

// settled returns how many items are finished: all up to the first
// assistant message not completed, less a prompt at the end that no
// completed reply answers yet.
func settled(items []*Record) int {
	n := len(items)
	lastUser := -1
	for i, it := range items {
		if it.Kind != KindMessage {
			continue
		}
		var m message
		_ = json.Unmarshal(it.Data, &m)
		switch m.Role {
		case "assistant":
			if m.Time.Completed == 0 {
				n = i
			} else {
				lastUser = -1
			}
		case "user":
			lastUser = i
		}
		if n == i {
			break
		}
	}
	if lastUser >= 0 && lastUser < n {
		n = lastUser
	}
	return n
}
