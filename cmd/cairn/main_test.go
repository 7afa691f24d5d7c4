package main

import (
	"flag"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain lets the scripts run this test binary as the cairn command.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"cairn": main})
}

// -update rewrites the expected output that scripts compare with cmp.
var update = flag.Bool("update", false, "rewrite cmp files in testdata/script with the actual output")

// TestScript runs the CLI transcripts in testdata/script: each is a
// workspace in a txtar archive and the commands run on it, with their
// expected output. The clock is fixed by CAIRN_NOW.
func TestScript(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:           "testdata/script",
		UpdateScripts: *update,
		Setup: func(env *testscript.Env) error {
			env.Setenv("CAIRN_NOW", "2026-03-19T10:23:00Z")
			env.Setenv("CAIRN_SESSION", "")
			env.Setenv("CLAUDE_SESSION_ID", "")
			return nil
		},
	})
}
