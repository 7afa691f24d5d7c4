package postgres_test

import (
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/storetest"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// stores returns every store over db.
func stores(db *postgres.DB) *storetest.Store {
	return &storetest.Store{
		Sessions: postgres.NewSessionStore(db), Rounds: postgres.NewRoundStore(db), Lines: postgres.NewLineStore(db),
		Inscription: postgres.NewInscriptionStore(db), Searcher: postgres.NewSearcher(db),
		Frames: postgres.NewFrameStore(db), Missions: postgres.NewMissionStore(db), Tags: postgres.NewTagStore(db),
		Engagements: postgres.NewEngagementStore(db),
		Keep:        postgres.NewKeepStore(db), Stats: postgres.NewStatsStore(db),
		Damage: func(tb testing.TB, id string, no int) { flipByte(tb, db, id, no) },
	}
}

// flipByte flips one bit of a stored byte of a session's line no, as a
// disk or a hand might: the line no longer matches its checksum.
func flipByte(tb testing.TB, db *postgres.DB, id string, no int) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, db.DSN)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, `UPDATE lines SET raw = set_byte(raw, 10, get_byte(raw, 10) # 1)
		WHERE session_id = $1 AND no = $2 AND generation = (SELECT generation FROM sessions WHERE id = $1)`, id, no)
	if err != nil {
		tb.Fatal(err)
	}
	if tag.RowsAffected() != 1 {
		tb.Fatalf("damaging line %d of session %s: %d lines", no, id, tag.RowsAffected())
	}
}

// mention is what every translated message names the store by.
const mention = "PostgreSQL store postgres://"

// exec runs statements on the database dsn names.
func exec(tb testing.TB, dsn string, stmts ...string) {
	tb.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, q := range stmts {
		if _, err := conn.Exec(ctx, q); err != nil {
			tb.Fatalf("%s: %v", q, err)
		}
	}
}

// TestStoreError_Dropped: every method of every store, on a schema whose
// tables another program dropped, fails with a message that names the
// store and says what to do.
func TestStoreError_Dropped(t *testing.T) {
	dsn := pgtest.Schema(t, "the PostgreSQL store error tests")
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	exec(t, dsn, `DO $$ DECLARE t text; BEGIN
		FOR t IN SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename != 'migrations' LOOP
			EXECUTE 'DROP TABLE ' || quote_ident(t) || ' CASCADE';
		END LOOP; END $$`)
	storetest.Broken(t, stores(db), mention)

	_, err := postgres.NewFrameStore(db).FindFrames(context.Background())
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || !strings.Contains(cairn.ErrorMessage(err), "lacks tables") {
		t.Fatalf("FindFrames: %v, want the driver's error kept under a message that says tables are missing", err)
	}
}

// TestStoreError_NewerSchema: a store a newer cairn migrated (here, one
// that moved the frames table) is used as far as it can be; what fails
// says to upgrade cairn.
func TestStoreError_NewerSchema(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.Schema(t, "the PostgreSQL store error tests")
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	exec(t, dsn, `ALTER TABLE frames RENAME TO frames_v2`, `INSERT INTO migrations (name) VALUES ('migration/0099_future.sql')`)
	db = postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := postgres.NewSessionStore(db).FindSessions(ctx, cairn.SessionFilter{}); err != nil {
		t.Fatalf("sessions of a newer store: %v", err)
	}
	_, err := postgres.NewFrameStore(db).FindFrames(ctx)
	msg := cairn.ErrorMessage(err)
	if !strings.Contains(msg, "newer cairn") || !strings.Contains(msg, "0099_future.sql") || !strings.Contains(msg, mention) || storetest.DriverText(msg) != "" {
		t.Fatalf("frames of a newer store: %q (%v)", msg, err)
	}
}

// TestStoreError_NewerRefusesWrite: a write a newer cairn's schema
// refuses (a column it requires) says to upgrade cairn, not that cairn
// has a bug. Before: "a bug in cairn … run `cairn reindex`".
func TestStoreError_NewerRefusesWrite(t *testing.T) {
	dsn := pgtest.Schema(t, "the PostgreSQL store error tests")
	db := postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	db.Close()
	exec(t, dsn, `ALTER TABLE sessions ADD COLUMN future text NOT NULL`, `INSERT INTO migrations (name) VALUES ('migration/0099_future.sql')`)
	db = postgres.NewDB(dsn)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	s := &cairn.Session{ID: "0e0e0e0e-0000-4000-8000-000000000043", Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport}
	err := postgres.NewInscriptionStore(db).Inscribe(context.Background(), &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: s.ID, Offset: 3, Lines: 1},
		Lines: []*cairn.Line{{SessionID: s.ID, No: 1, Raw: []byte("{}\n")}}})
	msg := cairn.ErrorMessage(err)
	if !strings.Contains(msg, "upgrade cairn") || strings.Contains(msg, "bug") || !strings.Contains(msg, "0099_future.sql") || storetest.DriverText(msg) != "" {
		t.Fatalf("a write a newer store refuses: %q", msg)
	}
}

// TestStoreError_Closed: a closed store's methods fail as the store's
// errors, not as the pool's.
func TestStoreError_Closed(t *testing.T) {
	db := MustOpenDB(t)
	db.Close()
	storetest.Broken(t, stores(db), mention)
}

// TestStoreError_ServerGone: a server that goes away (here, the proxy in
// front of it) fails every method with a message that says to check the
// server.
func TestStoreError_ServerGone(t *testing.T) {
	dsn := pgtest.Schema(t, "the PostgreSQL store error tests")
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))))
	db := postgres.NewDB(strings.Replace(dsn, net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), p.addr(), 1))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := postgres.NewFrameStore(db).FindFrames(context.Background()); err != nil {
		t.Fatal(err)
	}
	p.stop()
	storetest.Broken(t, stores(db), mention)
}

// TestOpen_Refused: a server that refuses connections fails Open with a
// message that names the store and says to check it, and keeps the
// driver's error.
func TestOpen_Refused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	db := postgres.NewDB("postgres://cairn:secret@" + addr + "/cairn?sslmode=disable")
	err = db.Open()
	msg := cairn.ErrorMessage(err)
	var ce *pgconn.ConnectError
	if !errors.As(err, &ce) || !strings.Contains(msg, "postgres://cairn@"+addr+"/cairn") || !strings.Contains(msg, "check that the server is up") ||
		strings.Contains(msg, "secret") || storetest.DriverText(msg) != "" {
		t.Fatalf("open: %q (%v)", msg, err)
	}
}

// proxy forwards connections to a server until stopped.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func startProxy(tb testing.TB, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
	tb.Cleanup(p.stop)
	return p
}

func (p *proxy) addr() string { return p.ln.Addr().String() }

// stop closes the listener and every connection: the server is gone.
func (p *proxy) stop() {
	p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
