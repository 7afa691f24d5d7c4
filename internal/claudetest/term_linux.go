package claudetest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn/internal/term"
)

// A Term is the real client running interactively in a pseudo-terminal
// ([term.Term]).
type Term = term.Term

// TermRows and TermCols are the size of the terminal a [Term] runs in.
const TermRows, TermCols = term.Rows, term.Cols

// Plain strips terminal escapes from what the client wrote ([term.Plain]).
func Plain(s string) string { return term.Plain(s) }

// SeedHome writes $HOME/.claude.json as a person who has used the client
// before has it: onboarding done, the API key approved and the project
// trusted, so that the interactive client goes straight to its prompt
// (offline, its first-run screens would try to reach the vendor). Nothing
// about MCP servers is seeded: what the client asks about them is what
// the user would be asked.
func SeedHome(tb testing.TB, home, project, version string) {
	tb.Helper()
	cfg := map[string]any{
		"hasCompletedOnboarding": true, "lastOnboardingVersion": version, "theme": "dark",
		"customApiKeyResponses": map[string]any{"approved": []string{apiKey[len(apiKey)-20:]}, "rejected": []string{}},
		"projects": map[string]any{project: map[string]any{
			"hasTrustDialogAccepted": true, "hasCompletedProjectOnboarding": true,
		}},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".claude.json"), data, 0o600); err != nil {
		tb.Fatal(err)
	}
}

// apiKey is the key every run of the client is given.
const apiKey = "sk-ant-api03-cairn-test-key-0123456789abcdefghij"

// StartTerm starts the client interactively in cwd, in a pseudo-terminal
// of [TermRows]×[TermCols], with a scratch home (seed it with [SeedHome])
// and the API at baseURL. Nothing of the real environment but PATH
// reaches it; env adds NAME=value pairs. The client is killed when the
// test ends, if [Term.Close] (/exit, as a person types it) has not ended
// it.
func StartTerm(tb testing.TB, env []string, bin, home, cwd, baseURL string, args ...string) *Term {
	tb.Helper()
	return term.Start(tb, term.Command{
		Path: bin, Args: args, Dir: cwd,
		Env: append([]string{
			"HOME=" + home, "ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_API_KEY=" + apiKey,
			"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
		}, env...),
		Quit: []string{"/exit", "\r"},
	})
}
