package inscribe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

// TestImport_SameNameElsewhere: a transcript with the same uuid file name
// in another folder (a backup beside the projects folder) is its own
// session, or, when it holds nothing the first does not, not stored at
// all; repeated imports of both change nothing, and neither is hidden.
func TestImport_SameNameElsewhere(t *testing.T) {
	ctx := context.Background()
	l1, l2, l3 := chainLine(1, "user", "q"), chainLine(2, "assistant", "a"), chainLine(3, "user", "more")
	for _, c := range []struct {
		name     string
		backup   string
		wantDup  bool
		sessions int
	}{
		{"OlderCopy", l1 + l2, true, 1},
		{"SameCopy", l1 + l2 + l3, true, 1},
		{"Diverged", l1 + chainLine(2, "assistant", "another answer"), false, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
			live := filepath.Join(dir, "projects", "-p", sid+".jsonl")
			backup := filepath.Join(dir, "backup", "-p", sid+".jsonl")
			os.MkdirAll(filepath.Dir(live), 0o755)
			os.MkdirAll(filepath.Dir(backup), 0o755)
			writeFile(t, live, l1, l2, l3)
			writeFile(t, backup, c.backup)
			for i := range 3 {
				for _, p := range []string{live, backup} {
					f := mustImport(t, newImporter(st), p).Files[0]
					switch {
					case p == live && i > 0 && f.Status != inscribe.StatusUnchanged,
						p == backup && c.wantDup && f.Status != inscribe.StatusDuplicate,
						p == backup && !c.wantDup && i > 0 && f.Status != inscribe.StatusUnchanged:
						t.Fatalf("import %d of %s: %+v", i+1, p, f)
					}
				}
			}
			if got := exported(t, st, sid); string(got) != l1+l2+l3 {
				t.Fatalf("the live session holds %q", got)
			}
			if src, _ := st.FindSource(ctx, sid); src.Generation != 0 {
				t.Fatalf("the live session is at generation %d: the copies alternated", src.Generation)
			}
			_, n, err := st.sessions.FindSessions(ctx, cairn.SessionFilter{})
			if err != nil || n != c.sessions {
				t.Fatalf("%d sessions (%v), want %d", n, err, c.sessions)
			}
			if !c.wantDup {
				id := cairn.SourceKey{Agent: cairn.AgentClaudeCode, ID: sid, Path: backup}.CopyID()
				if got := exported(t, st, id); string(got) != c.backup {
					t.Fatalf("the copy's session %s holds %q", id, got)
				}
			}
		})
	}
}

// TestImport_Moved: a transcript whose file moved (the old path is gone)
// carries on as the same session.
func TestImport_Moved(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	old := filepath.Join(dir, "a", sid+".jsonl")
	moved := filepath.Join(dir, "b", sid+".jsonl")
	os.MkdirAll(filepath.Dir(old), 0o755)
	os.MkdirAll(filepath.Dir(moved), 0o755)
	l1, l2, l3 := chainLine(1, "user", "q"), chainLine(2, "assistant", "a"), chainLine(3, "user", "more")
	writeFile(t, old, l1, l2)
	mustImport(t, newImporter(st), old)
	if err := os.Rename(old, moved); err != nil {
		t.Fatal(err)
	}
	writeFile(t, moved, l1, l2, l3)
	if f := mustImport(t, newImporter(st), moved).Files[0]; f.Status != inscribe.StatusAppended || f.SessionID != sid {
		t.Fatalf("%+v", f)
	}
	if got := exported(t, st, sid); string(got) != l1+l2+l3 {
		t.Fatal("the moved file's new line is not stored")
	}
}

// TestImport_MovedCopy: a folder of copies (a backup whose transcripts
// went on elsewhere, stored under copy ids) that is moved keeps its
// sessions: the moved files are not a third copy.
func TestImport_MovedCopy(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	live := filepath.Join(dir, "live", sid+".jsonl")
	backup := filepath.Join(dir, "backup", sid+".jsonl")
	moved := filepath.Join(dir, "moved", sid+".jsonl")
	for _, p := range []string{live, backup} {
		os.MkdirAll(filepath.Dir(p), 0o755)
	}
	l1, l2 := chainLine(1, "user", "q"), chainLine(2, "assistant", "a")
	writeFile(t, live, l1, l2, chainLine(3, "user", "live"))
	writeFile(t, backup, l1, l2, chainLine(3, "user", "backup"))
	mustImport(t, newImporter(st), live)
	mustImport(t, newImporter(st), backup)
	if err := os.Rename(filepath.Dir(backup), filepath.Dir(moved)); err != nil {
		t.Fatal(err)
	}
	f := mustImport(t, newImporter(st), moved).Files[0]
	copyID := cairn.SourceKey{Agent: cairn.AgentClaudeCode, ID: sid, Path: backup}.CopyID()
	if f.Status != inscribe.StatusUnchanged || f.SessionID != copyID {
		t.Fatalf("the moved copy: %+v, want unchanged %s", f, copyID)
	}
	if _, n, err := st.sessions.FindSessions(ctx, cairn.SessionFilter{}); err != nil || n != 2 {
		t.Fatalf("%d sessions (%v), want 2", n, err)
	}
}
