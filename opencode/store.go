package opencode

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/readrule"

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

// maxDocument bounds a JSON file of the storage era: a session, message
// or part (opencode cuts a tool's output long before).
const maxDocument = 256 << 20

// IsStore reports whether path is a file of opencode's SQLite store: one
// named opencode.db, or any SQLite database (its first 16 bytes), which no
// other harness cairn reads keeps. Importing it reads it as opencode's,
// and says so when it is not. The person named path: it is followed
// wherever it leads, but only a regular file is one ([readrule.Open]).
func IsStore(path string) bool {
	f, err := readrule.Open(path, nil)
	if err != nil {
		return false
	}
	defer f.Close()
	if filepath.Base(path) == DBName {
		return true
	}
	head := make([]byte, len(sqliteMagic))
	n, _ := f.Read(head)
	return string(head[:n]) == sqliteMagic
}

// sqliteMagic begins every SQLite database file.
const sqliteMagic = "SQLite format 3\x00"

// IsDataDir reports whether dir is an opencode data folder: it holds
// opencode.db or storage/session.
func IsDataDir(dir string) bool {
	if _, err := readrule.Stat(filepath.Join(dir, DBName), []string{dir}); err == nil {
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
// SQLite session has taken over; dir may also be a store file itself
// ([IsStore]). What cannot be read (a damaged store, a file cut short)
// is left out and returned as the error, a [*Unreadable] for each part,
// joined; the logs returned with it are every session that was read.
func ReadStore(ctx context.Context, dir string) ([]*Log, error) {
	logs, problems, err := readStore(ctx, dir, time.Now(), nil)
	if err != nil {
		return nil, err
	}
	return logs, errors.Join(problems...)
}

// readStore reads the store as ReadStore does, but not the documents of a
// session for which known returns true given its id and Mark. problems
// are the parts it could not read ([*Unreadable]), err what stopped it
// (the context).
func readStore(ctx context.Context, dir string, now time.Time, known func(id, mark string) bool) (logs []*Log, problems []error, err error) {
	seen := map[string]bool{}
	db, storage := filepath.Join(dir, DBName), filepath.Join(dir, StorageDir)
	within := []string{dir}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		db, storage, within = dir, "", nil
	}
	logs, problems, err = readDB(ctx, db, within, now, known)
	if err != nil {
		return nil, nil, err
	}
	for _, s := range logs {
		seen[s.ID] = true
	}
	var files []*Log
	if storage != "" {
		var p []error
		files, p = readStorage(storage)
		problems = append(problems, p...)
	}
	for _, s := range files {
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
	return logs, problems, nil
}

// storeError is an error of opencode's store at path, for its writer.
func storeError(path string, err error) error {
	return &cairn.Error{Code: cairn.EINVALID, Message: fmt.Sprintf("Cannot read opencode's store %s: %v.", path, err), Err: err}
}

// Unreadable is a part of an opencode data folder cairn could not read:
// its whole SQLite store, or one session of it, or a JSON file of the
// storage era. The session it holds (all of them, for a store that does
// not open) is left out of this read, the others are read all the same.
type Unreadable struct {
	Path    string // the store or file
	Session string // the session held back, "" for the whole store
	Err     error
}

func (e *Unreadable) Error() string {
	what := "its sessions were not imported; a later import tries again"
	if e.Session != "" {
		what = "session " + e.Session + " was not imported; a later import tries again"
	}
	return fmt.Sprintf("opencode's %s %s: %s", e.Path, storeProblem(e.Err), what)
}

func (e *Unreadable) Unwrap() error { return e.Err }

// storeProblem says in a sentence's words what is wrong with a store or
// file, from what reading it returned.
func storeProblem(err error) string {
	msg := err.Error()
	switch {
	case errors.Is(err, readrule.ErrRefused):
		return "is not read: " + strings.TrimPrefix(msg, readrule.ErrRefused.Error()+": ")
	case errors.Is(err, errCutShort):
		return "is cut short or not JSON (opencode leaves a file so while it rewrites it)"
	case strings.Contains(msg, "file is not a database"):
		return "is not an SQLite database (" + msg + ")"
	case strings.Contains(msg, "no such table"), strings.Contains(msg, "no such column"):
		return "is an SQLite database but not opencode's store, or of a schema cairn does not read (" + msg + ")"
	case strings.Contains(msg, "malformed"), strings.Contains(msg, "disk I/O"), strings.Contains(msg, "database disk image"):
		return "is damaged or cut short (" + msg + ")"
	}
	return "cannot be read (" + msg + ")"
}

// errCutShort is a storage file that is not a JSON document.
var errCutShort = errors.New("not JSON")

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

// betweenCheckAndOpen, when set, runs after the store's file is checked
// and before SQLite opens it: tests swap it there.
var betweenCheckAndOpen func(path string)

// openRead begins a read-only transaction on opencode's SQLite store at
// path, under the read rule (inside folders, no link, a regular file):
// [openTx].
func openRead(ctx context.Context, path string, folders []string) (*sql.DB, *sql.Tx, error) {
	return openTx(ctx, path, folders, false)
}

// openTx begins a transaction on opencode's SQLite store at path, a
// write's unless read, under the read rule. SQLite opens a file by name,
// so the file is opened and checked first ([readrule.Open]), SQLite opens
// it, and then, before anything is read or written, what SQLite holds
// must be that file ([readrule.SameOpen]): a path swapped between the
// check and SQLite's open is refused. A store that is not there is
// [fs.ErrNotExist].
func openTx(ctx context.Context, path string, folders []string, write bool) (*sql.DB, *sql.Tx, error) {
	f, err := readrule.Open(path, folders)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	if betweenCheckAndOpen != nil {
		betweenCheckAndOpen(path)
	}
	db, err := openDB(path, write)
	if err != nil {
		return nil, nil, err
	}
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: !write})
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	var seq int
	var name, opened string
	err = tx.QueryRowContext(ctx, `SELECT seq, name, file FROM pragma_database_list WHERE name = 'main'`).Scan(&seq, &name, &opened)
	if err == nil {
		err = readrule.SameOpen(f, opened, folders)
	}
	if err != nil {
		tx.Rollback()
		db.Close()
		return nil, nil, err
	}
	return db, tx, nil
}

// readDB reads the sessions of opencode's SQLite store at path in one
// read-only transaction ([openRead]). A store that does not open, is not
// read by the rule or lists no sessions is one problem; a session whose
// rows do not read, another, and the others are read. A store that is
// not there is none. err is the context's.
func readDB(ctx context.Context, path string, folders []string, now time.Time, known func(id, mark string) bool) (logs []*Log, problems []error, err error) {
	whole := func(err error) ([]*Log, []error, error) {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		return nil, []error{&Unreadable{Path: path, Err: err}}, nil
	}
	db, tx, err := openRead(ctx, path, folders)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	} else if err != nil {
		return whole(err)
	}
	defer db.Close()
	defer tx.Rollback()
	sessions, err := rows(ctx, tx, KindSession, `SELECT * FROM session ORDER BY time_created, id`)
	if err != nil {
		return whole(err)
	}
	marks := map[string]string{}
	rs, err := tx.QueryContext(ctx, `SELECT s.id,
		(SELECT count(*) || '.' || ifnull(max(time_updated), 0) FROM message WHERE session_id = s.id),
		(SELECT count(*) || '.' || ifnull(max(time_updated), 0) FROM part WHERE session_id = s.id)
		FROM session s`)
	if err != nil {
		return whole(err)
	}
	for rs.Next() {
		var id, m, p string
		if err := rs.Scan(&id, &m, &p); err != nil {
			rs.Close()
			return whole(err)
		}
		marks[id] = m + "/" + p
	}
	rs.Close()
	if err := rs.Err(); err != nil {
		return whole(err)
	}
	for _, s := range sessions {
		l := &Log{ID: s.ID, Session: s}
		l.Mark = fmt.Sprintf("%d/%s/%v", s.intCol("time_updated"), marks[s.ID], quiet(s, now))
		if known != nil && known(s.ID, l.Mark) {
			l.Skipped = true
			logs = append(logs, l)
			continue
		}
		msgs, err := rows(ctx, tx, KindMessage, `SELECT * FROM message WHERE session_id = ? ORDER BY time_created, id`, s.ID)
		var parts []*Record
		if err == nil {
			parts, err = rows(ctx, tx, KindPart, `SELECT * FROM part WHERE session_id = ? ORDER BY message_id, id`, s.ID)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			problems = append(problems, &Unreadable{Path: path, Session: s.ID, Err: err})
			continue
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
	return logs, problems, nil
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
// A session with a file that does not read (opencode rewrites them in
// place, and one may be read half written) is held back whole, a problem
// naming the file: its log takes documents in order, and the next import
// reads it again.
func readStorage(dir string) (logs []*Log, problems []error) {
	files, _ := filepath.Glob(filepath.Join(dir, "session", "*", "*.json"))
	for _, f := range files {
		s, err := readFile(dir, f, KindSession)
		if err != nil {
			problems = append(problems, &Unreadable{Path: f, Session: strings.TrimSuffix(filepath.Base(f), ".json"), Err: err})
			continue
		}
		if l, err := readStorageSession(dir, s); err != nil {
			problems = append(problems, err)
		} else {
			logs = append(logs, l)
		}
	}
	sort.SliceStable(logs, func(i, j int) bool { return created(logs[i].Session) < created(logs[j].Session) })
	return logs, problems
}

// readStorageSession reads the messages and parts of the storage era's
// session s; a file that does not read is an [*Unreadable].
func readStorageSession(dir string, s *Record) (*Log, error) {
	l := &Log{ID: s.ID, Session: s}
	{
		msgFiles, _ := filepath.Glob(filepath.Join(dir, "message", s.ID, "*.json"))
		var msgs []*Record
		for _, mf := range msgFiles {
			m, err := readFile(dir, mf, KindMessage)
			if err != nil {
				return nil, &Unreadable{Path: mf, Session: s.ID, Err: err}
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
				p, err := readFile(dir, pf, KindPart)
				if err != nil {
					return nil, &Unreadable{Path: pf, Session: s.ID, Err: err}
				}
				l.Items = append(l.Items, p)
			}
		}
	}
	return l, nil
}

// readFile reads a JSON file of the storage era under cairn's rule of
// what may be read ([readrule.ReadFile]): a regular file inside the data
// folder that holds the storage folder dir, reached by no link at any
// component from there (the storage folder itself swapped for a link
// included), of at most maxDocument.
func readFile(dir, path, kind string) (*Record, error) {
	b, err := readrule.ReadFile(path, []string{filepath.Dir(dir)}, maxDocument)
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, errCutShort
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
