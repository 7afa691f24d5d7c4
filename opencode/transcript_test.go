package opencode_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

var update = flag.Bool("update", false, "rewrite golden files")

// releases are the samples the real clients wrote (internal/opencodetest's
// TestGenerateSamples): 1.18.33's opencode.db, 1.1.65's storage/ files.
var releases = []string{"1.18.33", "1.1.65"}

// TestSamples reads each release's data folder into logs, which must be
// the committed ones byte for byte (the canonical form is stable), and
// builds them into rounds, steps and blocks, checked against a golden file.
func TestSamples(t *testing.T) {
	for _, rel := range releases {
		t.Run(rel, func(t *testing.T) {
			dir := filepath.Join("testdata", rel)
			logs := filepath.Join(t.TempDir(), "logs")
			paths, err := opencode.Mirror(context.Background(), dir, logs)
			if err != nil {
				t.Fatal(err)
			}
			if len(paths) != 1 {
				t.Fatalf("%d sessions, want 1", len(paths))
			}
			got, _ := os.ReadFile(paths[0])
			want, err := os.ReadFile(filepath.Join(dir, "logs", filepath.Base(paths[0])))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("the log of %s differs from the committed one", rel)
			}
			golden(t, filepath.Join("testdata", "golden", rel+".txt"), render(t, paths[0]))
		})
	}
}

// render builds a log into rounds and blocks and prints them.
func render(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(data, []byte("\n"))
	var head [][]byte
	for _, l := range lines {
		if len(l) > 0 {
			head = append(head, l)
		}
	}
	s, err := opencode.Format{}.Identify(path, head[:1])
	if err != nil {
		t.Fatal(err)
	}
	b := opencode.Format{}.NewBuilder(s, 0)
	var out strings.Builder
	for i, raw := range head {
		l := &cairn.Line{No: i + 1, Raw: raw}
		if p := b.Add(l); p != "" {
			fmt.Fprintf(&out, "line %d: %s\n", l.No, p)
		}
	}
	rounds, seq, msgs := b.Finish()
	fmt.Fprintf(&out, "session %s agent %s lineage %s version %s title %q\n", s.ID, s.Agent, s.Lineage, s.Version, s.Title)
	blocks := cairn.CollectBlocks(seq)
	for _, r := range rounds {
		fmt.Fprintf(&out, "round %d lines %d-%d tools %v usage %+v user %q agent %q\n", r.Seq, r.FirstLine, r.LastLine, r.Tools, r.Usage, r.UserPreview, r.AgentPreview)
		var rb []*cairn.Block
		for _, bl := range blocks {
			if bl.RoundSeq == r.Seq {
				rb = append(rb, bl)
			}
		}
		for _, st := range cairn.Steps(rb, r.LastLine) {
			fmt.Fprintf(&out, "  step %d lines %d-%d\n", st.Seq, st.FirstLine, st.LastLine)
		}
		for _, bl := range rb {
			fmt.Fprintf(&out, "  line %d %s %s %s %q err=%v\n", bl.LineNo, bl.Role, bl.Kind, bl.ToolName, opencode.Preview(bl.Content), bl.IsError)
		}
	}
	fmt.Fprintf(&out, "%d messages with usage\n", len(msgs))
	return out.String()
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./opencode -update writes it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (go test ./opencode -update rewrites it):\n%s", path, got)
	}
}
