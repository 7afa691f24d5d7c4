package sqlite

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	insc "github.com/cairn-dev/cairn/inscribe"
)

// TestOneConnection_Hook: a hook's process (OneConnection) opens one
// connection for its open, its reads and its live import, where it
// opened two (one schema parse each); its reads never wait for another
// process's writer, and a read while its own write transaction is open
// is served.
func TestOneConnection_Hook(t *testing.T) {
	ctx := context.Background()
	counter := countCompiles(t)
	dir := t.TempDir()
	path, appendRound := growingTranscript(t, dir)
	store := filepath.Join(dir, "s.db")
	importer := func(db *DB) *insc.Importer {
		st := struct {
			*InscriptionStore
			*LineStore
		}{NewInscriptionStore(db), NewLineStore(db)}
		return &insc.Importer{Store: st, Format: claudecode.Format{}, Live: true}
	}
	first := NewDB(store)
	if err := first.Open(); err != nil {
		t.Fatal(err)
	}
	if _, err := importer(first).Import(ctx, []string{path}); err != nil {
		t.Fatal(err)
	}
	first.Close()
	appendRound()

	counter.mu.Lock()
	counter.conns = 0
	counter.mu.Unlock()
	db := NewDB(store)
	db.OneConnection = true
	db.BusyTimeout = 100 * time.Millisecond
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sessions := NewSessionStore(db)
	if _, n, err := sessions.FindSessions(ctx, cairn.SessionFilter{}); err != nil || n != 1 {
		t.Fatalf("FindSessions: %d sessions, %v; want 1", n, err)
	}
	rep, err := importer(db).Import(ctx, []string{path})
	if err != nil {
		t.Fatal(err)
	}
	if f := rep.Files[0]; f.Status != insc.StatusAppended || f.Rounds != 4 {
		t.Fatalf("import: %+v, want 4 rounds appended", f)
	}
	rounds, err := NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{})
	if err != nil || len(rounds) != 4 {
		t.Fatalf("FindRounds: %d rounds, %v; want 4", len(rounds), err)
	}
	if counter.conns != 1 {
		t.Errorf("a hook's open, reads and import opened %d connections, want 1", counter.conns)
	}

	// Another process writing: this one's reads do not wait for it.
	other := NewDB(store)
	if err := other.Open(); err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	otx, err := other.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer otx.Rollback()
	if _, err := NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{}); err != nil {
		t.Fatalf("a read beside another process's write transaction: %v", err)
	}
	otx.Rollback()

	// Its own write transaction open: a read is served beside it.
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{})
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a read beside this process's write transaction: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("a read beside this process's write transaction waited for it")
	}
	tx.Rollback()
}
