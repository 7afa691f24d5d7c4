package claudecode_test

import (
	"bufio"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
)

// EditPatch reads the hunks a real Edit's result line records
// (toolUseResult.structuredPatch), numbered as in the file, and says
// ENOTFOUND for a line that records none.
func TestEditPatch(t *testing.T) {
	f, err := os.Open("../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl")
	if err != nil {
		t.Skipf("REAL TRANSCRIPTS NOT FOUND: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	var lines [][]byte
	for sc.Scan() {
		lines = append(lines, slices.Clone(sc.Bytes()))
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	// Line 365: "has been updated successfully", one hunk at line 2.
	hunks, err := claudecode.EditPatch(lines[364])
	if err != nil {
		t.Fatal(err)
	}
	if len(hunks) != 1 || hunks[0].OldStart != 2 || hunks[0].NewStart != 2 || hunks[0].OldLines != 7 || hunks[0].NewLines != 7 || len(hunks[0].Lines) != 8 {
		t.Fatalf("hunks: %+v", hunks)
	}
	if got := hunks[0].Lines[4]; !strings.HasPrefix(got, "+  alias Spotter.Transcripts.{Annotation, AnnotationMessageRef,") {
		t.Errorf("the added line: %q", got)
	}
	// Line 396: eleven hunks, the last at line 551 of the new file.
	if hunks, err := claudecode.EditPatch(lines[395]); err != nil || len(hunks) != 11 || hunks[10].NewStart != 551 {
		t.Errorf("eleven hunks: %d, %v", len(hunks), err)
	}
	// Line 153: a Write that made a new file: no hunks, and no error.
	if hunks, err := claudecode.EditPatch(lines[152]); err != nil || hunks == nil || len(hunks) != 0 {
		t.Errorf("a new file's Write: %+v, %v", hunks, err)
	}
	// The prompt's line records no edit.
	if _, err := claudecode.EditPatch(lines[4]); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("a prompt's line: %v", err)
	}
	if _, err := claudecode.EditPatch([]byte("{")); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("a broken line: %v", err)
	}
}
