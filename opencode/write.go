package opencode

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/readrule"
)

// Target is what an export needs to know of the store it goes into.
type Target struct {
	DB        bool   // opencode.db (else the JSON storage of 1.1 and earlier)
	ProjectID string // the project of the session's directory, else "global"
	Version   string // the version of the newest session in the store
	Provider  string // provider and model of the newest assistant message
	Model     string
}

// ReadTarget reads what an export into dataDir for a session in cwd needs.
// Returns ENOTFOUND when dataDir holds no opencode store.
func ReadTarget(ctx context.Context, dataDir, cwd string) (*Target, error) {
	path := filepath.Join(dataDir, DBName)
	db, tx, err := openRead(ctx, path, []string{dataDir})
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, readrule.ErrRefused) {
		if IsDataDir(dataDir) {
			return storageTarget(dataDir, cwd)
		}
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No opencode store at %s: run opencode once, or give its data folder with --out.", dataDir)
	} else if err != nil {
		return nil, storeError(path, err)
	}
	defer db.Close()
	defer tx.Rollback()
	t := &Target{DB: true, ProjectID: "global"}
	var pid string
	switch err := tx.QueryRowContext(ctx, `SELECT id FROM project WHERE worktree = ? ORDER BY time_updated DESC LIMIT 1`, cwd).Scan(&pid); err {
	case nil:
		t.ProjectID = pid
	case sql.ErrNoRows:
	default:
		return nil, storeError(path, err)
	}
	var version sql.NullString
	if err := tx.QueryRowContext(ctx, `SELECT version FROM session ORDER BY time_created DESC LIMIT 1`).Scan(&version); err != nil && err != sql.ErrNoRows {
		return nil, storeError(path, err)
	}
	t.Version = version.String
	var data string
	err = tx.QueryRowContext(ctx, `SELECT data FROM message WHERE json_extract(data, '$.role') = 'assistant' ORDER BY time_created DESC LIMIT 1`).Scan(&data)
	if err != nil && err != sql.ErrNoRows {
		return nil, storeError(path, err)
	}
	var m message
	var pm struct {
		ProviderID string `json:"providerID"`
	}
	_ = json.Unmarshal([]byte(data), &m)
	_ = json.Unmarshal([]byte(data), &pm)
	t.Provider, t.Model = pm.ProviderID, m.ModelID
	return t, nil
}

func storageTarget(dataDir, cwd string) (*Target, error) {
	t := &Target{ProjectID: "global"}
	files, _ := filepath.Glob(filepath.Join(dataDir, StorageDir, "project", "*.json"))
	for _, f := range files {
		var p struct {
			ID       string `json:"id"`
			Worktree string `json:"worktree"`
		}
		if b, err := readrule.ReadFile(f, []string{dataDir}, maxDocument); err == nil && json.Unmarshal(b, &p) == nil && p.Worktree == cwd && p.ID != "" {
			t.ProjectID = p.ID
		}
	}
	// A session that does not read says nothing of the version.
	logs, _ := readStorage(filepath.Join(dataDir, StorageDir))
	var newest int64
	for _, l := range logs {
		if c := created(l.Session); c >= newest {
			newest, t.Version = c, sessionOf(l.Session).Version
		}
		for _, it := range l.Items {
			var m message
			var pm struct {
				ProviderID string `json:"providerID"`
			}
			if it.Kind == KindMessage && json.Unmarshal(it.Data, &m) == nil && m.Role == "assistant" && m.ModelID != "" {
				_ = json.Unmarshal(it.Data, &pm)
				t.Provider, t.Model = pm.ProviderID, m.ModelID
			}
		}
	}
	return t, nil
}

// WriteSession writes s into the opencode store of dataDir as a session
// of x's directory. Into opencode.db it is one transaction (taken at once,
// waiting up to 10 s for the client's own writes): the session, its
// messages and their parts, or nothing. Into the JSON storage each file
// is written whole and renamed into place, the session's own file last,
// so the client never lists a session whose messages are missing.
func WriteSession(ctx context.Context, dataDir string, t *Target, x *Exporter, s *Session) error {
	if !t.DB {
		return writeStorage(filepath.Join(dataDir, StorageDir), t, x, s)
	}
	path := filepath.Join(dataDir, DBName)
	db, tx, err := openTx(ctx, path, []string{dataDir}, true)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, readrule.ErrRefused) {
		return storeError(path, err)
	} else if err != nil {
		return writeError(path, err)
	}
	defer db.Close()
	defer tx.Rollback()
	cols, err := columns(ctx, tx, "session")
	if err != nil {
		return writeError(path, err)
	}
	ms := s.Created.UnixMilli()
	row := map[string]any{
		"id": s.ID, "project_id": t.ProjectID, "slug": slug(s.ID), "directory": x.Cwd, "title": s.Title,
		"version": t.Version, "time_created": ms, "time_updated": ms,
	}
	if cols["agent"] {
		row["agent"] = x.Agent
	}
	if cols["model"] && x.Model != "" {
		row["model"] = string(jsonOf(map[string]any{"id": x.Model, "providerID": x.Provider}))
	}
	if err := insert(ctx, tx, "session", row); err != nil {
		return writeError(path, err)
	}
	for _, m := range s.Messages {
		created := m.Created
		if err := insert(ctx, tx, "message", map[string]any{"id": m.ID, "session_id": s.ID,
			"time_created": created, "time_updated": created, "data": string(jsonOf(m.Data))}); err != nil {
			return writeError(path, err)
		}
		for _, p := range m.Parts {
			if err := insert(ctx, tx, "part", map[string]any{"id": p.ID, "message_id": m.ID, "session_id": s.ID,
				"time_created": created, "time_updated": created, "data": string(jsonOf(p.Data))}); err != nil {
				return writeError(path, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		return writeError(path, err)
	}
	return nil
}

func writeError(path string, err error) error {
	return &cairn.Error{Code: cairn.EINVALID, Message: "Cannot write the session into opencode's store " + path +
		" (nothing was written): " + err.Error() + ".", Err: err}
}

func slug(id string) string { return "cairn-" + strings.ToLower(id[len(id)-6:]) }

func columns(ctx context.Context, tx *sql.Tx, table string) (map[string]bool, error) {
	rs, err := tx.QueryContext(ctx, `SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	cols := map[string]bool{}
	for rs.Next() {
		var n string
		if err := rs.Scan(&n); err != nil {
			return nil, err
		}
		cols[n] = true
	}
	return cols, rs.Err()
}

func insert(ctx context.Context, tx *sql.Tx, table string, row map[string]any) error {
	var names, marks []string
	var args []any
	for k, v := range row {
		names = append(names, "`"+k+"`")
		marks = append(marks, "?")
		args = append(args, v)
	}
	_, err := tx.ExecContext(ctx, "INSERT INTO `"+table+"` ("+strings.Join(names, ", ")+") VALUES ("+strings.Join(marks, ", ")+")", args...)
	return err
}

// writeStorage writes s as the JSON files of opencode 1.1 and earlier.
func writeStorage(dir string, t *Target, x *Exporter, s *Session) error {
	for _, m := range s.Messages {
		for _, p := range m.Parts {
			doc := withIDs(p.Data, "id", p.ID, "sessionID", s.ID, "messageID", m.ID)
			if err := writeJSON(filepath.Join(dir, "part", m.ID, p.ID+".json"), doc); err != nil {
				return err
			}
		}
		if err := writeJSON(filepath.Join(dir, "message", s.ID, m.ID+".json"), withIDs(m.Data, "id", m.ID, "sessionID", s.ID)); err != nil {
			return err
		}
	}
	ms := s.Created.UnixMilli()
	doc := map[string]any{"id": s.ID, "slug": slug(s.ID), "version": t.Version, "projectID": t.ProjectID,
		"directory": x.Cwd, "title": s.Title, "time": map[string]any{"created": ms, "updated": ms}}
	return writeJSON(filepath.Join(dir, "session", t.ProjectID, s.ID+".json"), doc)
}

func withIDs(data map[string]any, kv ...string) map[string]any {
	out := map[string]any{}
	for i := 0; i+1 < len(kv); i += 2 {
		out[kv[i]] = kv[i+1]
	}
	for k, v := range data {
		out[k] = v
	}
	return out
}

func writeJSON(path string, doc any) error {
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".cairn-*.tmp")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
