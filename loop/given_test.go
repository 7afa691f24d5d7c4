package loop

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/workspace"
)

// TestGivenOnce_CompactAfterResume: a resume's note not yet sent is
// carried across a compaction by the client, so the compaction's context
// leaves out the lines the note gave, and the note claims nothing a
// compaction voids; once a prompt sent the note, a compaction gives the
// whole context again.
func TestGivenOnce_CompactAfterResume(t *testing.T) {
	const session = "s1"
	before := "<context>\n# Prime\nPhase: planning\n</context>\n"
	after := "<context>\n# Prime\nPhase: planning\nConvention: NEW-LINE\n</context>\n"
	for _, prompted := range []bool{false, true} {
		w := workspace.New(t.TempDir())
		if got, err := givenOnce(w, session, FromNew, before); err != nil || got != before {
			t.Fatalf("start: %q, %v", got, err)
		}
		note, err := givenOnce(w, session, FromResume, after)
		if err != nil || !strings.Contains(note, "\nConvention: NEW-LINE\n") || strings.Contains(note, "holds") {
			t.Fatalf("resume: %q, %v", note, err)
		}
		want := "<context>\n# Prime\nPhase: planning\n</context>\n"
		if prompted {
			noteSent(w, session)
			want = after
		}
		got, err := givenOnce(w, session, FromCompact, after)
		if err != nil || got != want {
			t.Errorf("prompted %v: the compaction's context is %q, want %q (%v)", prompted, got, want, err)
		}
		if got, err := givenOnce(w, session, FromCompact, after); err != nil || got != after {
			t.Errorf("prompted %v: a second compaction's context is %q, want all of it (%v)", prompted, got, err)
		}
		if got, err := givenOnce(w, session, FromResume, after); err != nil || got != "" {
			t.Errorf("prompted %v: a resume with nothing changed is given %q (%v)", prompted, got, err)
		}
	}

	// A /clear after the note drops it: the compaction after gives all.
	w := workspace.New(t.TempDir())
	for _, source := range []string{FromNew, FromResume, FromClear} {
		text := after
		if source == FromNew {
			text = before
		}
		if _, err := givenOnce(w, session, source, text); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := givenOnce(w, session, FromCompact, after); err != nil || got != after {
		t.Errorf("a compaction after /clear gives %q, want all of it (%v)", got, err)
	}
}

// TestWithoutLines leaves out one occurrence of each line, the first.
func TestWithoutLines(t *testing.T) {
	got := withoutLines("a\n- x\nb\n- x\nc", []string{"- x", "c"})
	if want := "a\nb\n- x\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
