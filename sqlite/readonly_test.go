//go:build unix

package sqlite_test

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// TestOpen_ReadOnly: a store whose file and folder this user may not
// write is read, and every write says that the store is read-only. The
// reader is another process: the test binary run again, as nobody when
// the test runs as root (who may write anything), else as the same user
// (whom the permissions stop). Two stores: one closed cleanly (no -wal or
// -shm file, none can be made: read as immutable), and one a writer holds
// open, its last frame only in the -wal file (read with mode=ro through
// the writer's -shm).
func TestOpen_ReadOnly(t *testing.T) {
	if path := os.Getenv("CAIRN_READONLY_STORE"); path != "" {
		readOnlyChild(t, path, strings.Split(os.Getenv("CAIRN_READONLY_FRAMES"), ","))
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	ctx := context.Background()
	// Every folder down to the binary and the stores must be searchable
	// by the reader: t.TempDir's are the test's own (0700).
	dir := t.TempDir()
	for _, d := range []string{filepath.Dir(dir), dir} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "sqlite.test")
	copyFile(t, os.Args[0], bin, 0o755)

	closed := filepath.Join(dir, "closed", "cairn.db")
	db := MustOpenDBAt(t, closed)
	if _, err := stack(db).Push(ctx, "", &cairn.Frame{ID: "a", Title: "A", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	db.Close()

	open := filepath.Join(dir, "open", "cairn.db")
	db = MustOpenDBAt(t, open)
	if _, err := stack(db).Push(ctx, "", &cairn.Frame{ID: "a", Title: "A", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := stack(db).Push(ctx, "", &cairn.Frame{ID: "b", Title: "B", SuccessCriteria: "c"}, "ann"); err != nil {
		t.Fatal(err)
	}
	if info, err := os.Stat(open + "-wal"); err != nil || info.Size() == 0 {
		t.Fatalf("the open store's -wal file: %v, %v; want its last frames", info, err)
	}

	for _, c := range []struct {
		path   string
		frames string
	}{{closed, "a"}, {open, "a,b"}} {
		d := filepath.Dir(c.path)
		entries, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if err := os.Chmod(filepath.Join(d, e.Name()), 0o444); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.Chmod(d, 0o555); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(d, 0o755) })

		cmd := exec.Command(bin, "-test.run=^TestOpen_ReadOnly$", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_READONLY_STORE="+c.path, "CAIRN_READONLY_FRAMES="+c.frames)
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
			cmd.Dir = "/"
		}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("reader of %s: %v\n%s", c.path, err, out)
		}
		t.Logf("reader of %s:\n%s", c.path, out)
	}
	db.Close()
}

// readOnlyChild opens the store at path, which it may not write, reads
// its frames, and tries to write one.
func readOnlyChild(t *testing.T, path string, want []string) {
	ctx := context.Background()
	if f, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
		f.Close()
		t.Fatalf("%s is writable by this process: the test proves nothing", path)
	}
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		t.Fatalf("open: %v (%v)", err, cairn.ErrorMessage(err))
	}
	defer db.Close()
	if !db.ReadOnly() {
		t.Error("ReadOnly() = false")
	}
	frames, err := sqlite.NewFrameStore(db).FindFrames(ctx)
	if err != nil {
		t.Fatalf("read: %v", err)
	}
	var got []string
	for _, f := range frames {
		got = append(got, f.ID)
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("frames = %v, want %v", got, want)
	}
	_, err = stack(db).Push(ctx, "", &cairn.Frame{ID: "c", Title: "C", SuccessCriteria: "c"}, "ann")
	if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(cairn.ErrorMessage(err), "is read-only for this user") {
		t.Errorf("write: %v, want EINVALID saying the store is read-only", err)
	}
	t.Logf("write refused: %s", cairn.ErrorMessage(err))
}

func copyFile(tb testing.TB, from, to string, mode os.FileMode) {
	tb.Helper()
	src, err := os.Open(from)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		tb.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		tb.Fatal(err)
	}
}
