package cli

// clientEnv returns getenv as the clients see the person's home on goos:
// on Windows every client (Claude Code, Codex, Gemini CLI, opencode, pi)
// takes it from USERPROFILE, not HOME, which Windows does not set and a
// Git Bash or MSYS shell sets to a path of its own (/c/Users/x), so there
// HOME is answered with USERPROFILE when that is set. Elsewhere getenv is
// returned as it is.
func clientEnv(getenv func(string) string, goos string) func(string) string {
	if goos != "windows" {
		return getenv
	}
	return func(k string) string {
		if k == "HOME" {
			if p := getenv("USERPROFILE"); p != "" {
				return p
			}
		}
		return getenv(k)
	}
}
