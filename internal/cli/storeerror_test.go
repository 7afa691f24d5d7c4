//go:build linux

package cli

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/storetest"

	"github.com/jackc/pgx/v5"
)

// A broken store is one the commands in [storeCommands] run against: the
// location CAIRN_STORE names, what every failure must name it by, and
// what the failure of a write (push) must say.
type brokenStore struct {
	location string
	mention  string
	says     string
	uid      int    // run as this user (the store's permissions bind it); 0: as the test
	ws       string // the workspace the commands run in
	debug    bool   // set CAIRN_DEBUG=1
}

// storeEnv is the world the cairn processes of TestStoreErrors run in: a
// scratch HOME with one transcript, and a store holding it, a frame and
// a mission.
type storeEnv struct {
	bin, home, transcript, good string
}

const storeSession = "0d0d0d0d-0000-4000-8000-00000000e44e"

// storeCommands are the commands a person or a hook runs on a store; each
// opens it. "{transcript}" is the transcript's path, "{store}" a fresh
// store file.
var storeCommands = [][]string{
	{"sessions"}, {"sessions", "--json"}, {"rounds", "0d0d0d0d"}, {"show", "0d0d0d0d"}, {"export", "0d0d0d0d"},
	{"search", "answer"}, {"reindex"}, {"import", "{transcript}"}, {"scan"}, {"matrix"}, {"stats"}, {"prune", "--older-than", "30"},
	{"tree"}, {"ready"}, {"push", "Step", "--criteria", "done"}, {"plan", "Later", "--criteria", "done"},
	{"pop", "--results", "done"}, {"invalidate", "f1"}, {"mission", "set", "Ship it."}, {"mission"},
	{"phase"}, {"context"}, {"suggest"}, {"recover", "0d0d0d0d"}, {"inject", "0d0d0d0d", "1"}, {"advise", "0d0d0d0d"},
	{"compress-before", "0d0d0d0d", "2026-03-19T10:03:00Z"}, {"revive", "0d0d0d0d"},
	{"tag", "eng", "0d0d0d0d", "1"}, {"untag", "0d0d0d0d", "1"}, {"engagement", "start", "eng"},
	{"checkpoint", "did it", "--next", "more"}, {"migrate", "--to", "{store}"},
	{"hook", "SessionStart"}, {"hook", "Stop"}, {"hook", "UserPromptSubmit"}, {"hook", "SessionEnd"},
}

// TestStoreErrors runs the cairn binary's commands on stores that are
// not databases, damaged, of a newer cairn, read-only, locked by a long
// writer, or PostgreSQL servers that refuse or lost their tables: none
// panics or exits 2, none prints SQL or driver text (stdout included: a
// hook's goes to the agent), every failure names the store, and a write's
// says what happened.
func TestStoreErrors(t *testing.T) {
	env := newStoreEnv(t)
	cases := []struct {
		name  string
		setup func(t *testing.T) brokenStore
	}{
		{"NotADatabase", func(t *testing.T) brokenStore {
			path := filepath.Join(t.TempDir(), "cairn.db")
			os.WriteFile(path, []byte(strings.Repeat("not a database\n", 4096)), 0o644)
			return brokenStore{location: path, mention: path, says: "not a cairn store"}
		}},
		{"Damaged", func(t *testing.T) brokenStore {
			path := env.copyGood(t)
			storetest.DamageSQLite(t, path)
			return brokenStore{location: path, mention: path, says: "damaged"}
		}},
		{"Truncated", func(t *testing.T) brokenStore {
			path := env.copyGood(t)
			fi, _ := os.Stat(path)
			os.Truncate(path, fi.Size()/3)
			return brokenStore{location: path, mention: path, says: "damaged"}
		}},
		{"NewerSchema", func(t *testing.T) brokenStore {
			path := env.copyGood(t)
			rawExec(t, path, `ALTER TABLE frames RENAME TO frames_v2`, `ALTER TABLE sessions RENAME TO sessions_v2`,
				`INSERT INTO migrations (name) VALUES ('migration/0099_future.sql')`)
			return brokenStore{location: path, mention: path, says: "newer cairn"}
		}},
		{"ReadOnlyFile", func(t *testing.T) brokenStore {
			requireRoot(t)
			path := env.copyGood(t)
			chownTree(t, filepath.Dir(path))
			os.Chown(path, 0, 0) // the store alone stays root's: read-only for the user
			return brokenStore{location: path, mention: path, says: "read-only", uid: nobody}
		}},
		{"ReadOnlyFolder", func(t *testing.T) brokenStore {
			requireRoot(t)
			path := env.copyGood(t)
			os.Chown(filepath.Dir(path), 0, 0)
			os.Chown(path, nobody, nobody) // the file is the user's, its folder is not
			return brokenStore{location: path, mention: path, says: "read-only", uid: nobody}
		}},
		{"PostgresRefused", func(t *testing.T) brokenStore {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			addr := ln.Addr().String()
			ln.Close()
			return brokenStore{location: "postgres://cairn:pa55-w0rd@" + addr + "/cairn?sslmode=disable",
				mention: "PostgreSQL store postgres://cairn@" + addr + "/cairn", says: "could not be reached"}
		}},
		{"PostgresDropped", func(t *testing.T) brokenStore {
			dsn := pgtest.Schema(t, "the store error tests on PostgreSQL")
			db := postgres.NewDB(dsn)
			if err := db.Open(); err != nil {
				t.Fatal(err)
			}
			db.Close()
			ctx := context.Background()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close(ctx)
			if _, err := conn.Exec(ctx, `DO $$ DECLARE t text; BEGIN
				FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename != 'migrations' LOOP
					EXECUTE 'DROP TABLE ' || quote_ident(t) || ' CASCADE';
				END LOOP; END $$`); err != nil {
				t.Fatal(err)
			}
			return brokenStore{location: dsn, mention: "PostgreSQL store postgres://", says: "lacks tables"}
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			b := c.setup(t)
			b.ws = env.workspace(t, b.uid)
			failed := 0
			for _, args := range storeCommands {
				res := env.run(t, b, args)
				if res.check(t, b) {
					failed++
				}
				if args[0] == "push" && (res.code != 1 || !strings.Contains(res.stderr, b.says)) {
					t.Errorf("push: exit %d, stderr %q: want it to say %q", res.code, res.stderr, b.says)
				}
			}
			if failed == 0 {
				t.Error("no command failed: the store is not broken")
			}
		})
	}
	// CAIRN_DEBUG=1 adds the driver's error, for a bug report.
	t.Run("Debug", func(t *testing.T) {
		t.Parallel()
		path := filepath.Join(t.TempDir(), "cairn.db")
		os.WriteFile(path, []byte(strings.Repeat("not a database\n", 4096)), 0o644)
		b := brokenStore{location: path, mention: path, ws: env.workspace(t, 0), debug: true}
		res := env.run(t, b, []string{"sessions"})
		if res.code != 1 || !strings.Contains(res.stderr, "not a cairn store") || !strings.Contains(res.stderr, "cairn: cause: ") {
			t.Errorf("CAIRN_DEBUG=1 sessions: exit %d, stderr %q", res.code, res.stderr)
		}
	})
	// A long writer holds the store: reads answer at once, writes wait
	// out the busy timeout (30 s, so they run side by side) and say so.
	t.Run("Locked", func(t *testing.T) {
		t.Parallel()
		path := env.copyGood(t)
		unlock := holdWriteLock(t, path)
		defer unlock()
		b := brokenStore{location: path, mention: path, says: "stayed busy", ws: env.workspace(t, 0)}
		var wg sync.WaitGroup
		for _, args := range [][]string{{"sessions"}, {"search", "answer"}, {"push", "Step", "--criteria", "done"}, {"tag", "eng", "0d0d0d0d", "1"}} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res := env.run(t, b, args)
				failed := res.check(t, b)
				write := args[0] == "push" || args[0] == "tag"
				if failed != write || write && !strings.Contains(res.stderr, b.says) {
					t.Errorf("%s under a writer: exit %d, stderr %q", args, res.code, res.stderr)
				}
			}()
		}
		wg.Wait()
	})
}

// A storeResult is what one cairn process did.
type storeResult struct {
	args           []string
	code           int
	stdout, stderr string
}

// check reports whether the command failed, after checking what it
// printed: no panic, no usage exit, no driver text, and a failure that
// names the store.
func (r storeResult) check(t *testing.T, b brokenStore) bool {
	t.Helper()
	out := r.stdout + r.stderr
	switch {
	case strings.Contains(out, "panic:") || strings.Contains(out, "goroutine "):
		t.Errorf("%s: panicked:\n%s", r.args, r.stderr)
	case r.code != 0 && r.code != 1:
		t.Errorf("%s: exit %d: %s", r.args, r.code, r.stderr)
	case storetest.DriverText(out) != "":
		t.Errorf("%s: printed %q:\n%s", r.args, storetest.DriverText(out), out)
	case strings.Contains(out, "pa55-w0rd"):
		t.Errorf("%s: printed the DSN's password:\n%s", r.args, out)
	case r.code == 1 && !strings.Contains(r.stderr, b.mention):
		t.Errorf("%s: stderr %q does not name the store (%s)", r.args, r.stderr, b.mention)
	}
	return r.code != 0
}

func newStoreEnv(t *testing.T) *storeEnv {
	bin, err := exec.LookPath("cairn")
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	os.Chmod(filepath.Dir(root), 0o755)
	os.Chmod(root, 0o755)
	e := &storeEnv{bin: filepath.Join(root, "cairn"), home: filepath.Join(root, "home")}
	copyFile(t, bin, e.bin, 0o755)
	dir := filepath.Join(e.home, ".claude", "projects", "-w")
	os.MkdirAll(dir, 0o755)
	var b strings.Builder
	for n := 1; n <= 8; n++ {
		b.WriteString(raceLine(storeSession, n))
	}
	e.transcript = filepath.Join(dir, storeSession+".jsonl")
	os.WriteFile(e.transcript, []byte(b.String()), 0o644)
	e.good = filepath.Join(root, "good.db")
	good := brokenStore{location: e.good, ws: e.workspace(t, 0)}
	for _, args := range [][]string{{"import", e.transcript}, {"push", "First", "--criteria", "done"}, {"mission", "set", "Ship it."}} {
		if res := e.run(t, good, args); res.code != 0 {
			t.Fatalf("%s: %s", args, res.stderr)
		}
	}
	chownTree(t, e.home)
	return e
}

// workspace returns a new workspace that uid may write.
func (e *storeEnv) workspace(t *testing.T, uid int) string {
	ws := t.TempDir()
	chownTree(t, ws)
	if res := e.run(t, brokenStore{location: filepath.Join(ws, "unused.db"), ws: ws, uid: uid}, []string{"init"}); res.code != 0 {
		t.Fatalf("init: %s", res.stderr)
	}
	return ws
}

// run runs cairn args in the workspace on b's store.
func (e *storeEnv) run(t *testing.T, b brokenStore, args []string) storeResult {
	t.Helper()
	args = append([]string(nil), args...)
	for i, a := range args {
		switch a {
		case "{transcript}":
			args[i] = e.transcript
		case "{store}":
			args[i] = filepath.Join(t.TempDir(), "copy.db")
			chownTree(t, filepath.Dir(args[i]))
		}
	}
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = b.ws
	cmd.Env = append(os.Environ(), "HOME="+e.home, "CAIRN_STORE="+b.location, "CAIRN_SESSION=", "CLAUDE_CODE_SESSION_ID=",
		"CAIRN_TRANSCRIPT_DIRS=", "CAIRN_NOW=2026-03-19T10:23:00Z", "CAIRN_DEBUG=")
	if args[0] == "hook" {
		cmd.Stdin = strings.NewReader(fmt.Sprintf(`{"session_id":%q,"transcript_path":%q,"cwd":%q,"hook_event_name":%q,"source":"startup","reason":"other","prompt":"go on"}`,
			storeSession, e.transcript, b.ws, args[1]))
	}
	if b.debug {
		cmd.Env = append(cmd.Env, "CAIRN_DEBUG=1")
	}
	if b.uid != 0 {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(b.uid), Gid: uint32(b.uid)}}
	}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("%s: %v", args, err)
	}
	return storeResult{args: args, code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// copyGood returns a copy of the good store in a folder of its own.
func (e *storeEnv) copyGood(t *testing.T) string {
	dir := t.TempDir()
	chownTree(t, dir)
	path := filepath.Join(dir, "cairn.db")
	copyFile(t, e.good, path, 0o644)
	return path
}

// nobody is the user the permission cases run cairn as: root reads and
// writes anything.
const nobody = 65534

func requireRoot(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("SKIPPING: running cairn as another user needs root; run as root to check read-only stores")
	}
}

// chownTree gives dir and what it holds to nobody, when running as root,
// and opens its parents to everyone.
func chownTree(t *testing.T, dir string) {
	if os.Geteuid() != 0 {
		return
	}
	for p := filepath.Dir(dir); p != "/" && strings.HasPrefix(p, os.TempDir()+"/"); p = filepath.Dir(p) {
		os.Chmod(p, 0o755)
	}
	filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
		if err == nil {
			os.Chown(p, nobody, nobody)
		}
		return nil
	})
}

func copyFile(t *testing.T, from, to string, perm os.FileMode) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// rawExec runs statements on the SQLite file at path.
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	raw, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	for _, q := range stmts {
		if _, err := raw.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
}

// holdWriteLock takes the SQLite store's write lock, as a long import
// would, until the returned function is called.
func holdWriteLock(t *testing.T, path string) func() {
	t.Helper()
	ctx := context.Background()
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := raw.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	return func() {
		conn.ExecContext(ctx, "ROLLBACK")
		conn.Close()
		raw.Close()
	}
}
