package inscribe_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// TestImporter_Tag checks auto-tagging: rounds inscribed while an engagement
// is active carry it; rounds inscribed after it stopped do not; the lines
// stay byte for byte what was read.
func TestImporter_Tag(t *testing.T) {
	ctx := context.Background()
	st := mustOpenStore(t, filepath.Join(t.TempDir(), "cairn.db"))
	src := "../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	lines := claudecode.SplitLines(data)
	path := filepath.Join(t.TempDir(), filepath.Base(src))
	// The first two prompts are written while "auth" is active.
	if err := os.WriteFile(path, concat(lines[:50]), 0o644); err != nil {
		t.Fatal(err)
	}
	active := "auth"
	var asked []string
	im := newImporter(st)
	im.Tag = func(s *cairn.Session) (string, string) {
		asked = append(asked, s.ID)
		return active, "frame-" + active
	}
	mustImport(t, im, path)
	// Then the engagement stops, and the rest of the file arrives.
	active = ""
	im.Tag = func(*cairn.Session) (string, string) { return active, "" }
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	mustImport(t, im, path)

	if len(asked) == 0 || asked[0] != "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01" {
		t.Fatalf("Tag asked for %q", asked)
	}
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: asked[0]})
	if err != nil {
		t.Fatal(err)
	}
	got := map[int]string{}
	for _, r := range rounds {
		got[r.Seq] = r.EngagementID + "/" + r.FrameID
	}
	want := map[int]string{0: "/", 1: "auth/frame-auth", 2: "auth/frame-auth", 3: "/"}
	for seq, w := range want {
		if got[seq] != w {
			t.Errorf("round %d tag = %q, want %q", seq, got[seq], w)
		}
	}
	stored, err := st.FindLines(ctx, asked[0], 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var all []byte
	for _, l := range stored {
		all = append(all, l.Raw...)
	}
	if string(all) != string(data) {
		t.Fatal("stored lines differ from the file")
	}
}

func concat(lines [][]byte) []byte {
	var out []byte
	for _, l := range lines {
		out = append(out, l...)
	}
	return out
}
