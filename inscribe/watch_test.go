package inscribe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/inscribe"
)

// Watch imports a transcript as it grows and says which session changed;
// a file that does not change is not reported again.
func TestWatch(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	projects := filepath.Join(dir, "projects")
	if err := os.Mkdir(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(projects, sid+".jsonl")
	l1, l2, l3, l4 := chainLine(1, "user", "first question"), chainLine(2, "assistant", "first answer"), chainLine(3, "user", "second question"), chainLine(4, "assistant", "second answer")
	writeFile(t, file, l1, l2)

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan *inscribe.FileReport, 16)
	done := make(chan error, 1)
	go func() {
		done <- im.Watch(ctx, []string{projects}, 20*time.Millisecond, func(fr *inscribe.FileReport, _ []inscribe.Problem) { reports <- fr })
	}()
	next := func() *inscribe.FileReport {
		t.Helper()
		select {
		case fr := <-reports:
			return fr
		case <-time.After(60 * time.Second): // only a failure waits it out
			t.Fatal("no report within 60 s")
			return nil
		}
	}
	if fr := next(); fr.SessionID != sid || fr.Rounds != 1 {
		t.Fatalf("first pass: %+v", fr)
	}
	// The client appends; a poll may fall between the two lines, so the
	// two may come in one report or two, never as a rewrite.
	start := time.Now()
	f, err := os.OpenFile(file, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(l3 + l4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	for read := 0; read < 2; {
		fr := next()
		if fr.SessionID != sid || fr.Status != inscribe.StatusAppended || fr.Read == 0 {
			t.Fatalf("after two lines appended: %+v", fr)
		}
		if read += fr.Read; read == 2 && fr.Rounds != 2 {
			t.Fatalf("after two lines appended: %d rounds, want 2 (%+v)", fr.Rounds, fr)
		}
	}
	t.Logf("a grown file imported in %v", time.Since(start))
	select {
	case fr := <-reports:
		t.Fatalf("reported again without a change: %+v", fr)
	case <-time.After(100 * time.Millisecond):
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// A folder that does not exist yet is watched for: Watch waits instead of
// failing, and imports its transcripts once it appears.
func TestWatch_Absent(t *testing.T) {
	dir := t.TempDir()
	st := mustOpenStore(t, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	projects := filepath.Join(dir, "projects")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reports := make(chan *inscribe.FileReport, 16)
	done := make(chan error, 1)
	go func() {
		done <- im.Watch(ctx, []string{projects}, 20*time.Millisecond, func(fr *inscribe.FileReport, _ []inscribe.Problem) { reports <- fr })
	}()
	select {
	case err := <-done:
		t.Fatalf("Watch of an absent folder returned %v", err)
	case <-time.After(100 * time.Millisecond):
	}
	if err := os.Mkdir(projects, 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(projects, sid+".jsonl"), chainLine(1, "user", "first question"), chainLine(2, "assistant", "first answer"))
	select {
	case fr := <-reports:
		if fr.SessionID != sid || fr.Rounds != 1 {
			t.Fatalf("once the folder appeared: %+v", fr)
		}
	case <-time.After(60 * time.Second): // only a failure waits it out
		t.Fatal("nothing imported within 60 s of the folder appearing")
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
