package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/workspace"
)

// BenchmarkSessionWrites measures what a session's end reads for the
// files it wrote, in a workspace named by $CAIRN_BENCH_WORKSPACE (its
// store and its one long session, as bench/cmd/hookbench leaves them):
// from the store since the last read ("store"), the first read of a
// session with no record ("store-first": its last round), and the
// transcript's last 256 KiB as before ("tail"); and what weighing pops
// costs when there is none ("popped-none").
func BenchmarkSessionWrites(b *testing.B) {
	ws := os.Getenv("CAIRN_BENCH_WORKSPACE")
	if ws == "" {
		b.Skip("$CAIRN_BENCH_WORKSPACE names no workspace")
	}
	db := sqlite.NewDB(filepath.Join(ws, ".cairn", "cairn.db"))
	if err := db.Open(); err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	st := &Stores{Rounds: sqlite.NewRoundStore(db), Inscription: sqlite.NewInscriptionStore(db), Frames: sqlite.NewFrameStore(db)}
	paths, _ := filepath.Glob(filepath.Join(ws, "*.jsonl"))
	if len(paths) == 0 {
		b.Fatal("no session in the workspace")
	}
	session := strings.TrimSuffix(filepath.Base(paths[0]), ".jsonl")
	ctx := context.Background()
	l := &Loop{Workspace: workspace.New(b.TempDir())}
	if err := l.beginWrites(ctx, st, session); err != nil {
		b.Fatal(err)
	}
	b.Run("store", func(b *testing.B) {
		for range b.N {
			if _, err := l.sessionWrites(ctx, st, session); err != nil {
				b.Fatal(err)
			}
		}
	})
	// What every turn's end and prompt add when no frame was popped since
	// the last weighing: the frames read, the mark compared.
	l.Open = func() (*Stores, error) { return st, nil }
	b.Run("popped-none", func(b *testing.B) {
		for range b.N {
			if r, err := l.popped(ctx, Event{Kind: Prompt, Session: session}, session); err != nil || r != (Reply{}) {
				b.Fatal(r, err)
			}
		}
	})
	b.Run("tail", func(b *testing.B) {
		for range b.N {
			f, err := os.Open(paths[0])
			if err != nil {
				b.Fatal(err)
			}
			if _, err := claudecode.LastWrites(f); err != nil {
				b.Fatal(err)
			}
			f.Close()
		}
	})
	b.Run("store-first", func(b *testing.B) {
		for range b.N {
			_ = os.Remove(l.writesPath(session))
			files, err := l.sessionWrites(ctx, st, session)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(len(files)), "files")
		}
	})
}
