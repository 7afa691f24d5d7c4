package inscribe_test

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
)

// manySessions writes n small sessions into dir, each a copy of a sample
// transcript under a session id of its own, and returns their files by
// session id.
func manySessions(tb testing.TB, dir string, n int) map[string]string {
	tb.Helper()
	const sample = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04"
	data, err := os.ReadFile("../testdata/claudecode/" + sample + ".jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	files := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("6a1d0000-0000-4000-8000-%012d", i)
		path := filepath.Join(dir, id+".jsonl")
		if err := os.WriteFile(path, bytes.ReplaceAll(data, []byte(sample), []byte(id)), 0o644); err != nil {
			tb.Fatal(err)
		}
		files[id] = path
	}
	return files
}

// TestImport_Grouped: importing many sessions at once, their batches
// written in shared transactions, stores what importing them one file
// after another does (a parent and its sub-agent included), and reports
// the same.
func TestImport_Grouped(t *testing.T) {
	dir := t.TempDir()
	manySessions(t, dir, 60)
	if err := os.CopyFS(filepath.Join(dir, "samples"), os.DirFS("../testdata/claudecode")); err != nil {
		t.Fatal(err)
	}
	at := mustOpenStore(t, filepath.Join(t.TempDir(), "at-once.db"))
	rep := mustImport(t, newImporter(at), dir)

	alone := mustOpenStore(t, filepath.Join(t.TempDir(), "alone.db"))
	im := newImporter(alone)
	for _, f := range rep.Files {
		got, _ := im.ImportFile(context.Background(), f.Path)
		if got.Status != f.Status || got.Stored != f.Stored || got.Read != f.Read || got.Bytes != f.Bytes ||
			got.Rounds != f.Rounds || got.SessionID != f.SessionID || got.Error != f.Error {
			t.Errorf("%s: alone %+v, with the others %+v", f.Path, got, f)
		}
	}
	if rep.Stored == 0 || len(rep.Files) < 64 {
		t.Fatalf("report: %s", rep.Summary())
	}
	for _, f := range rep.Files {
		if f.SessionID == "" {
			continue
		}
		if got, want := index(t, at, f.SessionID), index(t, alone, f.SessionID); got != want {
			t.Fatalf("%s imported with the others differs from alone:\n%s", f.Path, firstDiff(want, got))
		}
	}
	sub, _, err := at.sessions.FindSessions(context.Background(), cairn.SessionFilter{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	linked := 0
	for _, s := range sub {
		if s.Lineage == cairn.LineageSubagent && s.ParentRound > 0 {
			linked++
		}
	}
	if linked == 0 {
		t.Fatal("no sub-agent linked to the round that spawned it")
	}
}

// TestImport_KilledMidGroup kills an import of many small sessions, whose
// batches are committed several to a transaction, at several points: every
// file reported stored is stored whole, no session is stored in part, and
// importing again stores the rest, as a clean import does.
func TestImport_KilledMidGroup(t *testing.T) {
	if testing.Short() {
		t.Skip("kills child processes; skipped with -short")
	}
	dir := t.TempDir()
	files := manySessions(t, dir, 100)
	clean := mustOpenStore(t, filepath.Join(t.TempDir(), "clean.db"))
	mustImport(t, newImporter(clean), dir)

	for _, after := range []int{1, 25, 60} {
		t.Run(fmt.Sprintf("After%dFiles", after), func(t *testing.T) {
			dbPath := filepath.Join(t.TempDir(), "killed.db")
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_KILL_CHILD=1", "CAIRN_KILL_STORE="+dbPath, "CAIRN_KILL_FOLDER="+dir)
			out, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			reported := map[string]bool{}
			sc := bufio.NewScanner(out)
			for len(reported) < after && sc.Scan() {
				reported[strings.TrimSpace(sc.Text())] = true
			}
			if err := cmd.Process.Kill(); err != nil {
				t.Fatal(err)
			}
			cmd.Wait()

			st := mustOpenStore(t, dbPath)
			stored := 0
			for id, path := range files {
				data, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				src, err := st.FindSource(context.Background(), id)
				if cairn.ErrorCode(err) == cairn.ENOTFOUND {
					if reported[path] {
						t.Fatalf("%s was reported stored, and is not after the kill", path)
					}
					continue
				} else if err != nil {
					t.Fatal(err)
				}
				stored++
				if src.Offset != int64(len(data)) || !bytes.Equal(exported(t, st, id), data) {
					t.Fatalf("%s: %d of %d bytes stored after the kill; want all or none", path, src.Offset, len(data))
				}
			}
			if stored < len(reported) || stored == len(files) {
				t.Fatalf("killed after %d files reported: %d of %d stored; not midway", len(reported), stored, len(files))
			}
			t.Logf("killed after %d files reported: %d of %d stored", len(reported), stored, len(files))
			rep := mustImport(t, newImporter(st), dir)
			news := 0
			for _, f := range rep.Files {
				if f.Status == inscribe.StatusNew {
					news++
				} else if f.Status != inscribe.StatusUnchanged {
					t.Fatalf("re-import: %+v", f)
				}
			}
			if news != len(files)-stored {
				t.Fatalf("re-import stored %d new files, want the %d left", news, len(files)-stored)
			}
			for id := range files {
				if got, want := index(t, st, id), index(t, clean, id); got != want {
					t.Fatalf("%s after kill + re-import differs from a clean import:\n%s", id, firstDiff(want, got))
				}
			}
		})
	}
}
