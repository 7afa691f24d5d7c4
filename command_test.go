package cairn_test

import (
	"encoding/json"
	"testing"

	"github.com/cairn-dev/cairn"
)

func TestCommandLine(t *testing.T) {
	for raw, want := range map[string]string{
		`"ls -la"`:                         "ls -la",
		`["bash", "-lc", "go test ./..."]`: "go test ./...",
		`["sh", "-c", "echo hi"]`:          "echo hi",
		`["git", "status", "--short"]`:     "git status --short",
		`[]`:                               "",
		`42`:                               "",
		``:                                 "",
	} {
		if got := cairn.CommandLine(json.RawMessage(raw)); got != want {
			t.Errorf("CommandLine(%s) = %q, want %q", raw, got, want)
		}
	}
}
