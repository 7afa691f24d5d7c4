package opencodetest_test

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/opencodetest"
	"github.com/cairn-dev/cairn/opencode"
)

// TestGenerateSamples rewrites opencode/testdata/<release>/: the data
// folder of each release after the two prompts of the script (its
// opencode.db, vacuumed into one file, or its storage/ files), and the
// canonical log cairn makes of it (logs/). Run with
// CAIRN_OPENCODE_SAMPLES=1; the samples are committed.
func TestGenerateSamples(t *testing.T) {
	if os.Getenv("CAIRN_OPENCODE_SAMPLES") == "" {
		t.Skip("set CAIRN_OPENCODE_SAMPLES=1 to rewrite opencode/testdata")
	}
	for _, c := range opencodetest.Clients(t) {
		t.Run(c.Name, func(t *testing.T) {
			r := newRig(t, c)
			r.home.Run(t, c.Bin, "run", "make the notes file")
			id := r.newest(t)
			r.home.Run(t, c.Bin, "run", "--session", id, "fix the notes")
			out := filepath.Join("..", "..", "opencode", "testdata", c.Version)
			if err := os.RemoveAll(out); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(out, 0o755); err != nil {
				t.Fatal(err)
			}
			if src := filepath.Join(r.home.DataDir(), opencode.DBName); exists(src) {
				db, err := sql.Open("sqlite", "file:"+src)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := db.Exec(`VACUUM INTO ?`, filepath.Join(out, opencode.DBName)); err != nil {
					t.Fatal(err)
				}
				db.Close()
			} else {
				copyTree(t, filepath.Join(r.home.DataDir(), opencode.StorageDir), filepath.Join(out, opencode.StorageDir))
			}
			if _, err := opencode.Mirror(context.Background(), out, filepath.Join(out, "logs")); err != nil {
				t.Fatal(err)
			}
			os.Remove(filepath.Join(out, "logs", ".lock"))
		})
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.Walk(from, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		dst := filepath.Join(to, rel)
		if info.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}
