package inscribe_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
)

// The kill test re-executes the test binary as a child that imports with
// small batches and reports each commit; the parent kills it mid-import.
func init() {
	if os.Getenv("CAIRN_KILL_CHILD") == "" {
		return
	}
	st := mustOpenStoreNoCleanup(os.Getenv("CAIRN_KILL_STORE"))
	im := &inscribe.Importer{Store: st, Format: claudecode.Format{}, BatchBytes: 32 << 10,
		Progress: func(_ string, done, _ int64) { fmt.Println("committed", done) }}
	if os.Getenv("CAIRN_KILL_FILE") == "" {
		// Many small files, each one batch: a file is reported once its
		// batch is committed, in a group with others.
		im.BatchBytes = 0
		im.Progress = func(path string, _, _ int64) { fmt.Println(path) }
	}
	if _, err := im.Import(context.Background(), []string{os.Getenv("CAIRN_KILL_FILE") + os.Getenv("CAIRN_KILL_FOLDER")}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// bigTranscript repeats a sample transcript until it is at least size
// bytes: a long session of many rounds.
func bigTranscript(tb testing.TB, size int) []byte {
	tb.Helper()
	data, err := os.ReadFile("../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	var buf bytes.Buffer
	for buf.Len() < size {
		buf.Write(data)
	}
	return buf.Bytes()
}

func TestImport_KilledMidway(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	dir := t.TempDir()
	data := bigTranscript(t, 3<<20)
	file := filepath.Join(dir, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	clean := mustOpenStore(t, filepath.Join(dir, "clean.db"))
	id := mustImport(t, newImporter(clean), file).Files[0].SessionID
	want := index(t, clean, id)

	for _, after := range []int{1, 7, 30} {
		t.Run(fmt.Sprintf("After%dCommits", after), func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "killed.db")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_KILL_CHILD=1", "CAIRN_KILL_STORE="+dbPath, "CAIRN_KILL_FILE="+file)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			sc := bufio.NewScanner(out)
			for n := 0; n < after && sc.Scan(); n++ {
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			st := mustOpenStore(t, dbPath)
			src, err := st.FindSource(context.Background(), id)
			if err != nil {
				t.Fatalf("after the kill: %v", err)
			}
			if src.Offset <= 0 || src.Offset >= int64(len(data)) {
				t.Fatalf("killed at offset %d of %d: not midway", src.Offset, len(data))
			}
			if got := exported(t, st, id); !bytes.Equal(got, data[:src.Offset]) {
				t.Fatalf("after the kill the store holds %d bytes that are not the file's first %d", len(got), src.Offset)
			}
			f := mustImport(t, newImporter(st), file).Files[0]
			if f.Status != inscribe.StatusAppended {
				t.Fatalf("re-import: %+v", f)
			}
			if !bytes.Equal(exported(t, st, id), data) {
				t.Fatal("export after re-import differs from the file")
			}
			if got := index(t, st, id); got != want {
				t.Fatalf("index after kill + re-import differs from a clean import:\n%s", firstDiff(want, got))
			}
		})
	}
}
