package inscribe_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/inscribe"
)

// TestImport_LiveTrustsThePrefix: a live import (a hook's) of a file whose
// windows are as stored does not read its prefix again, so a same-size
// edit in the middle, outside both windows, is not seen there: the new
// line is appended. The next import that is not live reads every byte,
// sees the edit and stores the file as a new generation, whole.
func TestImport_LiveTrustsThePrefix(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	file := filepath.Join(dir, sid+".jsonl")
	original := bigFile(400, "steady") // ~400 KiB: the middle is outside both hashed windows
	writeFile(t, file, original)
	mustImport(t, newImporter(st), file)

	mid := strings.Index(original[len(original)/2:], "steady") + len(original)/2
	edited := original[:mid] + "STEADY" + original[mid+len("steady"):] + chainLine(401, "user", "more")
	writeFile(t, file, edited)
	live := newImporter(st)
	live.Live = true
	if f := mustImport(t, live, file).Files[0]; f.Status != inscribe.StatusAppended || f.Read != 1 {
		t.Fatalf("live import after an edit in the middle and an append: %+v", f)
	}
	if f := mustImport(t, newImporter(st), file).Files[0]; f.Status != inscribe.StatusRewritten {
		t.Fatalf("the import after it: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != edited {
		t.Fatalf("export differs from the file: %s", firstDiff(string(got), edited))
	}
}

// TestImport_LiveAppendsThenFull: the sum a run of live imports carries on
// is the file's: an import that reads every byte afterwards finds the
// file unchanged, whatever the appended lines' sizes (the hash's blocks
// of 64 bytes fall anywhere in them). A live import of a file at another
// path than the one stored reads every byte.
func TestImport_LiveAppendsThenFull(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	file := filepath.Join(dir, sid+".jsonl")
	content := bigFile(200, "steady")
	writeFile(t, file, content)
	live := newImporter(st)
	live.Live = true
	mustImport(t, live, file)
	for i := 201; i <= 207; i++ {
		content += chainLine(i, []string{"user", "assistant"}[i%2], strings.Repeat("x", i*7))
		writeFile(t, file, content)
		if f := mustImport(t, live, file).Files[0]; f.Status != inscribe.StatusAppended || f.Read != 1 {
			t.Fatalf("live import %d: %+v", i, f)
		}
		if src, err := st.FindSource(ctx, sid); err != nil || len(src.Sum) <= 32 {
			t.Fatalf("stored sum after live import %d: %d bytes, %v; want a hash's state", i, len(src.Sum), err)
		}
	}
	if f := mustImport(t, newImporter(st), file).Files[0]; f.Status != inscribe.StatusUnchanged {
		t.Fatalf("full import after the live ones: %+v", f)
	}
	if got := exported(t, st, sid); string(got) != content {
		t.Fatalf("export differs from the file: %s", firstDiff(string(got), content))
	}

	moved := filepath.Join(t.TempDir(), sid+".jsonl")
	if err := os.Rename(file, moved); err != nil {
		t.Fatal(err)
	}
	mid := strings.Index(content[len(content)/2:], "steady") + len(content)/2
	writeFile(t, moved, content[:mid]+"STEADY"+content[mid+len("steady"):])
	if f := mustImport(t, live, moved).Files[0]; f.Status != inscribe.StatusRewritten || f.SessionID != sid {
		t.Fatalf("live import of the file moved and edited: %+v", f)
	}
}
