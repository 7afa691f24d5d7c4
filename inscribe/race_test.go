package inscribe_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/cairn-dev/cairn/inscribe"
)

// bigFile returns n chained lines, each about 1 KiB, so that a small
// BatchBytes makes many batches.
func bigFile(n int, text string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		typ := "user"
		if i%2 == 0 {
			typ = "assistant"
		}
		b.WriteString(chainLine(i, typ, text+strings.Repeat(".", 1000)))
	}
	return b.String()
}

// changeDuringImport imports file in batches and calls change once, after
// the first batch is stored; the import must end with the store holding
// the file as it is afterwards.
func changeDuringImport(t *testing.T, change func(file string)) (*inscribe.Report, *store, string) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	file := filepath.Join(dir, sid+".jsonl")
	writeFile(t, file, bigFile(40, "old"))
	var once sync.Once
	im := newImporter(st)
	im.BatchBytes = 4 << 10
	im.Progress = func(string, int64, int64) { once.Do(func() { change(file) }) }
	return mustImport(t, im, file), st, file
}

// TestImport_RewrittenInPlaceDuringImport: a file rewritten in place (same
// inode) between two batches is not stored as the old head followed by the
// new file's bytes: the change is seen at the next commit and the import
// starts again, storing the new file as a new generation.
func TestImport_RewrittenInPlaceDuringImport(t *testing.T) {
	rep, st, file := changeDuringImport(t, func(file string) { writeFile(t, file, bigFile(30, "new")) })
	want, _ := os.ReadFile(file)
	if got := exported(t, st, sid); string(got) != string(want) {
		t.Fatalf("the store holds %d bytes that are not the rewritten file's %d (%+v)", len(got), len(want), rep.Files[0])
	}
	if f := mustImport(t, newImporter(st), file).Files[0]; f.Status != inscribe.StatusUnchanged {
		t.Fatalf("a second import: %+v", f)
	}
}

// TestImport_ReplacedDuringImport: a file replaced by rename while an
// import reads its predecessor leaves the session importable, holding the
// new file.
func TestImport_ReplacedDuringImport(t *testing.T) {
	_, st, file := changeDuringImport(t, func(file string) {
		writeFile(t, file+".tmp", bigFile(25, "replaced"))
		if err := os.Rename(file+".tmp", file); err != nil {
			t.Fatal(err)
		}
	})
	want, _ := os.ReadFile(file)
	if got := exported(t, st, sid); string(got) != string(want) {
		t.Fatalf("the store holds %d bytes, not the new file's %d", len(got), len(want))
	}
	// Later appends are stored.
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(chainLine(26, "assistant", "later"))
	f.Close()
	if r := mustImport(t, newImporter(st), file).Files[0]; r.Status != inscribe.StatusAppended || r.Stored != 1 {
		t.Fatalf("append after the replacement: %+v", r)
	}
	want, _ = os.ReadFile(file)
	if got := exported(t, st, sid); string(got) != string(want) {
		t.Fatal("the append is not stored")
	}
}

// TestImport_FIFO: a named pipe called *.jsonl, in a folder or named
// directly, is skipped with a reason instead of blocking the import.
func TestImport_FIFO(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	fifo := filepath.Join(dir, "0b0b0b0b-0000-4000-8000-00000000f1f0.jsonl")
	if err := makeFIFO(fifo); err != nil {
		t.Skip(err)
	}
	writeFile(t, filepath.Join(dir, sid+".jsonl"), chainLine(1, "user", "q"))
	for _, paths := range [][]string{{dir}, {fifo}} {
		rep, err := newImporter(st).Import(context.Background(), paths)
		if err != nil {
			t.Fatal(err)
		}
		var found bool
		for _, f := range rep.Files {
			if f.Path == fifo {
				found = true
				if f.Status != inscribe.StatusSkipped || !strings.Contains(f.Error, "named pipe") {
					t.Errorf("%v: the FIFO: %+v", paths, f)
				}
			}
		}
		if !found {
			t.Errorf("%v: the FIFO is not reported: %+v", paths, rep.Files)
		}
	}
}

// TestImport_UnreadableFolder: a folder that cannot be listed is reported
// and skipped; the files beside it are imported.
func TestImport_UnreadableFolder(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("SKIPPING: root reads every folder")
	}
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	root := filepath.Join(dir, "projects")
	locked := filepath.Join(root, "a-locked")
	if err := os.MkdirAll(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(locked, "0b0b0b0b-0000-4000-8000-0000000000aa.jsonl"), chainLine(1, "user", "hidden"))
	os.MkdirAll(filepath.Join(root, "b-open"), 0o755)
	writeFile(t, filepath.Join(root, "b-open", sid+".jsonl"), chainLine(1, "user", "q"))
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	rep, err := newImporter(st).Import(context.Background(), []string{root})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Files) != 2 || rep.Files[0].Path != locked || rep.Files[0].Status != inscribe.StatusSkipped ||
		!strings.Contains(rep.Files[0].Error, "permission denied") || rep.Files[1].Status != inscribe.StatusNew {
		for _, f := range rep.Files {
			t.Logf("%+v", f)
		}
		t.Fatal("want the locked folder skipped with its reason and the other file imported")
	}
}
