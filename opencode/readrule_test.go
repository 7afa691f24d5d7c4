//go:build unix

package opencode

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/readrule"
)

// TestReadRule_SwapBetweenCheckAndOpen: opencode.db (or its folder)
// swapped for a link to another store after the read rule checked it and
// before SQLite opens it by name is refused, an Unreadable naming it;
// nothing of the other store is read. Before, SQLite followed the link
// and the other store's sessions were imported.
func TestReadRule_SwapBetweenCheckAndOpen(t *testing.T) {
	fixture, err := os.ReadFile("testdata/1.18.33/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	store := func(dir, title string) {
		t.Helper()
		os.MkdirAll(dir, 0o755)
		path := filepath.Join(dir, DBName)
		if err := os.WriteFile(path, fixture, 0o644); err != nil {
			t.Fatal(err)
		}
		if title == "" {
			return
		}
		db, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec(`UPDATE session SET title = ?`, title); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name string
		swap func(t *testing.T, dir, outside string)
	}{
		{"none", nil},
		{"file for a link out", func(t *testing.T, dir, outside string) {
			mustDo(t, os.Rename(filepath.Join(dir, DBName), filepath.Join(dir, "aside.db")))
			mustDo(t, os.Symlink(filepath.Join(outside, DBName), filepath.Join(dir, DBName)))
		}},
		{"folder for a link out", func(t *testing.T, dir, outside string) {
			mustDo(t, os.Rename(dir, dir+".aside"))
			mustDo(t, os.Symlink(outside, dir))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base := t.TempDir()
			dir, outside := filepath.Join(base, "opencode"), filepath.Join(base, "outside")
			store(dir, "")
			store(outside, "OUTSIDE")
			betweenCheckAndOpen = nil
			if c.swap != nil {
				betweenCheckAndOpen = func(string) { c.swap(t, dir, outside) }
			}
			defer func() { betweenCheckAndOpen = nil }()
			logs, err := ReadStore(context.Background(), dir)
			for _, l := range logs {
				if strings.Contains(string(l.Session.Data), "OUTSIDE") || strings.Contains(l.Session.col("title"), "OUTSIDE") {
					t.Errorf("session %s read from the store outside", l.ID)
				}
			}
			var u *Unreadable
			switch {
			case c.swap == nil && (err != nil || len(logs) != 1):
				t.Fatalf("unswapped: %d sessions, %v", len(logs), err)
			case c.swap != nil && (!errors.As(err, &u) || !errors.Is(err, readrule.ErrRefused) || u.Session != "" || len(logs) != 0):
				t.Fatalf("swapped: %d sessions, %v; want the store refused", len(logs), err)
			case c.swap != nil:
				t.Logf("%v", err)
			}
		})
	}
}

// TestReadRule_SwapBeforeWrite: an export into opencode.db swapped for a
// link to another store between the check and SQLite's open is refused,
// and the other store is left as it was. Before, the session was written
// into it.
func TestReadRule_SwapBeforeWrite(t *testing.T) {
	fixture, err := os.ReadFile("testdata/1.18.33/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	base := t.TempDir()
	dir, outside := filepath.Join(base, "opencode"), filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		os.MkdirAll(d, 0o755)
		mustDo(t, os.WriteFile(filepath.Join(d, DBName), fixture, 0o644))
	}
	ctx := context.Background()
	target, err := ReadTarget(ctx, dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	betweenCheckAndOpen = func(string) {
		mustDo(t, os.Rename(filepath.Join(dir, DBName), filepath.Join(dir, "aside.db")))
		mustDo(t, os.Symlink(filepath.Join(outside, DBName), filepath.Join(dir, DBName)))
	}
	defer func() { betweenCheckAndOpen = nil }()
	err = WriteSession(ctx, dir, target, &Exporter{Cwd: "/w"}, &Session{ID: "ses_written", Title: "written", Created: time.Now()})
	betweenCheckAndOpen = nil
	logs, rerr := ReadStore(ctx, outside)
	if rerr != nil || len(logs) != 1 {
		t.Errorf("the store outside holds %d sessions (%v), want its 1", len(logs), rerr)
	}
	if !errors.Is(err, readrule.ErrRefused) {
		t.Fatalf("write into the swapped store: %v, want refused", err)
	}
	t.Log(err)
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
