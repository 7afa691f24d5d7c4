package cli

import (
	"bytes"
	"context"
	"flag"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the cairn command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"cairn": func() { Run("", "") }})
}

// -update rewrites the expected output that scripts compare with cmp.
var update = flag.Bool("update", false, "rewrite cmp files in testdata/script with the actual output")

// TestScript runs the CLI transcripts in testdata/script: each is a
// workspace in a txtar archive and the commands run on it, with their
// expected output. The clock is fixed by CAIRN_NOW; hooks may read the
// transcripts of the work folder.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CAIRN_NOW", "2026-03-19T10:23:00Z")
			env.Setenv("CAIRN_SESSION", "")
			env.Setenv("CLAUDE_CODE_SESSION_ID", "")
			// Hooks read transcripts only under a transcript folder: the
			// scripts keep theirs in the work folder.
			env.Setenv("CAIRN_TRANSCRIPT_DIRS", env.WorkDir)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"append": appendFile},
	})
}

// appendFile is the script command "append [-n] FROM TO": it adds FROM's
// bytes to the end of TO, as a client writing a transcript does; -n drops
// FROM's final newline (txtar files always end with one), to leave a line
// half written.
func appendFile(ts *testscript.TestScript, neg bool, args []string) {
	trim := len(args) > 0 && args[0] == "-n"
	if trim {
		args = args[1:]
	}
	if neg || len(args) != 2 {
		ts.Fatalf("usage: append [-n] FROM TO")
	}
	data := ts.ReadFile(args[0])
	if trim {
		data = strings.TrimSuffix(data, "\n")
	}
	f, err := os.OpenFile(ts.MkAbs(args[1]), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	ts.Check(err)
	_, err = f.WriteString(data)
	ts.Check(err)
	ts.Check(f.Close())
}

// writeCounter counts the writes made to it.
type writeCounter struct {
	bytes.Buffer
	writes int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}

// cairn --help writes its help in one write (it used to write each line:
// some sixty system calls for a command that does nothing else).
func TestHelp_OneWrite(t *testing.T) {
	var stdout writeCounter
	m := NewMain(strings.NewReader(""), &stdout, io.Discard)
	if err := m.Run(context.Background(), []string{"--help"}); err != nil {
		t.Fatal(err)
	}
	if stdout.writes != 1 || !strings.Contains(stdout.String(), "Start here:") {
		t.Fatalf("%d writes:\n%s", stdout.writes, stdout.String())
	}
}
