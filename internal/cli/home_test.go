package cli

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/pi"
)

// TestClientEnv_Home: the home cairn finds the clients' folders under is
// theirs on every OS: on Windows USERPROFILE (what Node's and Rust's home
// directory read there), whatever HOME a Git Bash shell set; elsewhere
// HOME. The Codex, Gemini CLI and pi homes follow it unless their own
// variables name them.
func TestClientEnv_Home(t *testing.T) {
	for _, c := range []struct {
		goos string
		env  map[string]string
		want string
	}{
		{"windows", map[string]string{"HOME": "/c/Users/x", "USERPROFILE": `C:\Users\x`}, `C:\Users\x`},
		{"windows", map[string]string{"USERPROFILE": `C:\Users\x`}, `C:\Users\x`},
		{"windows", map[string]string{"HOME": `D:\home`}, `D:\home`},
		{"linux", map[string]string{"HOME": "/home/x", "USERPROFILE": `C:\Users\x`}, "/home/x"},
		{"darwin", map[string]string{"HOME": "/Users/x"}, "/Users/x"},
	} {
		getenv := clientEnv(func(k string) string { return c.env[k] }, c.goos)
		home := getenv("HOME")
		if home != c.want {
			t.Errorf("%s %v: HOME %q, want %q", c.goos, c.env, home, c.want)
		}
		for what, dir := range map[string]string{
			"codex":  codex.Home(getenv, home),
			"gemini": gemini.Home(getenv, home),
			"pi":     pi.Home(getenv, home),
		} {
			if !strings.HasPrefix(dir, c.want) {
				t.Errorf("%s %v: %s home %q, not under %q", c.goos, c.env, what, dir, c.want)
			}
		}
		if getenv("PATH") != c.env["PATH"] {
			t.Errorf("%s: another variable changed", c.goos)
		}
	}
	own := map[string]string{"USERPROFILE": `C:\Users\x`, "CODEX_HOME": `E:\codex`, "GEMINI_CLI_HOME": `E:\g`, "PI_CODING_AGENT_DIR": `E:\pi`}
	getenv := clientEnv(func(k string) string { return own[k] }, "windows")
	if got := codex.Home(getenv, getenv("HOME")); got != `E:\codex` {
		t.Errorf("CODEX_HOME: %q", got)
	}
	if got := gemini.Home(getenv, getenv("HOME")); !strings.HasPrefix(got, `E:\g`) {
		t.Errorf("GEMINI_CLI_HOME: %q", got)
	}
	if got := pi.Home(getenv, getenv("HOME")); got != `E:\pi` {
		t.Errorf("PI_CODING_AGENT_DIR: %q", got)
	}
}
