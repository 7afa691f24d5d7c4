package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/workspace"
)

// A finding is one thing doctor checked: ok, a warning (something not set
// up, which works without it) or a problem (something that fails), with
// the one command that fixes it.
type finding struct {
	Check  string `json:"check"`
	Status string `json:"status"` // "ok", "warn" or "fail"
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"`
}

// npmInstall installs cairn and cairn-full on PATH (npm/pack.sh).
const npmInstall = "npm install -g @cairn/cairn"

const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
	statusNone = "-" // a client not installed here: nothing to check
)

func (m *Main) runDoctor(ctx context.Context, args []string) error {
	fs := m.newFlagSet("doctor", "[--json]", `
Say whether cairn works here, and for each thing that does not, the one
command that fixes it: this binary and its lean/full pair (cairn-full,
same version), cairn on PATH (what the clients' hooks run) and a hook
run by it once (a prompt in an empty folder: nothing read or written), the
workspace, the store (opens, answers a query: backend, sessions), and
for each harness (Claude Code, Codex, Gemini CLI, opencode, pi) the
client's version found on PATH and what cairn install set up: hooks, MCP
server, status line, permissions, plugin, pi's extension (where pi loads
it from here) and its command answering a compaction (a scratch session
and store); Claude Code's session folder readable.

"fail" is something that fails (cairn exits 1), "warn" something not set
up that cairn works without, "-" a client not found.

Examples:
  cairn doctor
  cairn doctor --json`)
	asJSON := fs.Bool("json", false, "print the findings as JSON")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError("doctor takes no arguments")
	}
	info, _ := debug.ReadBuildInfo()
	self := versionLine(version, commit, info, lean)
	fs2 := []finding{{Check: "cairn", Status: statusOK, Detail: self}}
	fs2 = append(fs2, checkFull(self, lean, func() (string, error) { return fullBinary(m.Getenv) }, m.runVersion))
	fs2 = append(fs2, m.checkOnPath())
	fs2 = append(fs2, m.checkHookRuns())
	fs2 = append(fs2, m.checkWorkspace())
	fs2 = append(fs2, m.checkStore(ctx))
	fs2 = append(fs2, m.checkClaude()...)
	fs2 = append(fs2, m.checkOthers()...)
	fs2 = append(fs2, m.checkPi(ctx)...)

	problems := 0
	for _, f := range fs2 {
		if f.Status == statusFail {
			problems++
		}
	}
	if *asJSON {
		enc := json.NewEncoder(m.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(struct {
			Findings []finding `json:"findings"`
			Problems int       `json:"problems"`
		}{fs2, problems}); err != nil {
			return err
		}
	} else {
		for _, f := range fs2 {
			fmt.Fprintf(m.Stdout, "%-4s  %-20s %s\n", f.Status, f.Check, f.Detail)
			if f.Fix != "" {
				fmt.Fprintf(m.Stdout, "      %-20s fix: %s\n", "", f.Fix)
			}
		}
	}
	if problems > 0 {
		return cairn.Errorf(cairn.EINVALID, "doctor: %d problem(s) found", problems)
	}
	return nil
}

// checkFull checks the lean/full pair: the lean build hands the MCP
// server, the viewer and PostgreSQL to cairn-full, which must be found
// and be the same release.
func checkFull(self string, lean bool, find func() (string, error), run func(string) (string, error)) finding {
	f := finding{Check: "cairn-full"}
	if !lean {
		f.Status, f.Detail = statusOK, "this is the full build: it needs no cairn-full"
		return f
	}
	const fix = npmInstall + " (or: CGO_ENABLED=0 GOBIN=$(dirname $(command -v cairn)) go install github.com/cairn-dev/cairn/cmd/cairn-full@latest)"
	path, err := find()
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, "not found: cairn mcp, serve and PostgreSQL stores cannot run", fix
		return f
	}
	out, err := run(path)
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("%s does not run: %v", path, err), fix
		return f
	}
	if release(out) != release(self) {
		f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("%s is %s, this cairn %s", path, release(out), release(self)), fix
		return f
	}
	f.Status, f.Detail = statusOK, path+": "+release(out)
	return f
}

// release returns the version and commit of a version line: "cairn 1.2.3
// (commit abc, lean build, …)" gives "1.2.3 (commit abc".
func release(line string) string {
	line = strings.TrimPrefix(strings.TrimSpace(line), "cairn ")
	if i := strings.Index(line, ","); i >= 0 {
		line = line[:i]
	}
	return line
}

// runVersion runs path --version and returns its first line, of its
// standard error when it prints nothing else (pi 0.73 does so).
func (m *Main) runVersion(path string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "--version")
	cmd.Env = append(os.Environ(), "PATH="+m.Getenv("PATH"), "HOME="+m.Getenv("HOME"), "DISABLE_AUTOUPDATER=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", err
	}
	if len(strings.TrimSpace(string(out))) == 0 {
		out = []byte(stderr.String())
	}
	first, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return strings.TrimSpace(first), nil
}

// lookPath finds name on the PATH cairn was given.
func (m *Main) lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(m.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		p := filepath.Join(dir, name)
		if info, err := os.Stat(p); err == nil && !info.IsDir() && info.Mode()&0o111 != 0 {
			return p, true
		}
	}
	return "", false
}

// checkOnPath checks that the clients' hooks find a cairn to run.
func (m *Main) checkOnPath() finding {
	f := finding{Check: "cairn on PATH"}
	path, ok := m.lookPath("cairn")
	if !ok {
		f.Status, f.Detail, f.Fix = statusFail, "not found: the clients' hooks and MCP server cannot run it", npmInstall
		return f
	}
	f.Status, f.Detail = statusOK, path
	return f
}

// checkHookRuns runs PATH's cairn once as a client runs a hook, with a
// harmless input (a prompt in an empty folder, which is no workspace: the
// hook reads nothing and writes nothing), and times it.
func (m *Main) checkHookRuns() finding {
	f := finding{Check: "hook runs"}
	path, ok := m.lookPath("cairn")
	if !ok {
		f.Status, f.Detail = statusNone, "no cairn on PATH to run"
		return f
	}
	dir, err := os.MkdirTemp("", "cairn-doctor-")
	if err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return f
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "hook", "UserPromptSubmit")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+m.Getenv("PATH"), "HOME="+m.Getenv("HOME"))
	in, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "session_id": "cairn-doctor", "cwd": dir, "prompt": "cairn doctor"})
	cmd.Stdin = strings.NewReader(string(in))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("%s hook UserPromptSubmit: %v: %s", path, err, clipLine(string(out), 200)), npmInstall
		return f
	}
	f.Status, f.Detail = statusOK, fmt.Sprintf("%s hook UserPromptSubmit: exit 0 in %d ms", path, took.Milliseconds())
	return f
}

func (m *Main) checkWorkspace() finding {
	f := finding{Check: "workspace"}
	wd, err := m.Getwd()
	if err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return f
	}
	root, ok := workspace.Find(wd)
	if !ok {
		f.Status, f.Detail, f.Fix = statusWarn, "none in "+wd+" or above it: the hooks stay silent here", "cairn init"
		return f
	}
	f.Status, f.Detail = statusOK, root
	return f
}

// checkStore opens the store and asks it a question: one that fails to
// open, or whose schema this cairn cannot read, is a problem. A store
// not made yet is not opened (opening makes it).
func (m *Main) checkStore(ctx context.Context) finding {
	f := finding{Check: "store"}
	location, err := m.storePath("")
	if err != nil {
		f.Status, f.Detail = statusFail, err.Error()
		return f
	}
	if !isPostgres(location) {
		if _, err := os.Stat(location); errors.Is(err, os.ErrNotExist) {
			f.Status, f.Detail, f.Fix = statusWarn, "no store yet at "+location, "cairn import"
			return f
		}
	}
	st, err := m.openStore("")
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, errorText(err), "cairn migrate --in-place"
		return f
	}
	defer st.Close()
	s, err := st.stats.Stats(ctx, false)
	if err != nil {
		f.Status, f.Detail, f.Fix = statusFail, errorText(err), "cairn reindex"
		return f
	}
	f.Status, f.Detail = statusOK, fmt.Sprintf("%s %s: %d sessions, schema current", s.Backend, s.Location, s.Sessions)
	return f
}

// checkClaude checks Claude Code: the client on PATH, what install set
// up (in the project, else for the user) and its session folder.
func (m *Main) checkClaude() []finding {
	out := []finding{m.clientVersion("claude", "Claude Code")}
	home := m.Getenv("HOME")
	project, _ := m.projectRoot()
	p := claudePaths{project: project, settings: filepath.Join(project, ".claude", "settings.json"), mcp: filepath.Join(project, ".mcp.json")}
	user := claudePaths{project: project, settings: filepath.Join(home, ".claude", "settings.json"), mcp: filepath.Join(home, ".claude.json")}
	fix := "cairn install claude"
	items := []struct {
		what    string
		in      func(claudePaths) string
		missing func([]byte) bool
	}{
		{"hooks", func(p claudePaths) string { return p.settings }, func(b []byte) bool { _, c, err := claudecode.InstallHooks(b, "cairn"); return c || err != nil }},
		{"MCP server", func(p claudePaths) string { return p.mcp }, func(b []byte) bool { _, c, err := claudecode.InstallMCP(b, "cairn"); return c || err != nil }},
		{"status line", func(p claudePaths) string { return p.settings }, func(b []byte) bool {
			_, c, other, err := claudecode.InstallStatusLine(b, "cairn")
			return (c && other == "") || err != nil
		}},
		{"permissions", func(p claudePaths) string {
			if p.settings == user.settings {
				return p.settings
			}
			return p.local()
		}, func(b []byte) bool {
			_, c, err := claudecode.AllowCommands(b, "cairn", "settings.json")
			return c || err != nil
		}},
	}
	plugin := m.claudePlugin(project)
	for _, it := range items {
		f := finding{Check: "claude " + it.what}
		if plugin != "" && (it.what == "hooks" || it.what == "MCP server") {
			f.Status, f.Detail = statusOK, "the "+plugin+" plugin"
			out = append(out, f)
			continue
		}
		where, ok := "", false
		for _, c := range []claudePaths{p, user} {
			data, err := readSettings(it.in(c))
			if err == nil && !it.missing(data) {
				where, ok = it.in(c), true
				break
			}
		}
		switch {
		case ok:
			f.Status, f.Detail = statusOK, m.rel(where)
		case plugin != "" && it.what == "status line":
			f.Status, f.Detail, f.Fix = statusWarn, "not installed (project or user): the "+plugin+" plugin cannot set it (a plugin's settings.json may set only agent and subagentStatusLine)", fix
		default:
			f.Status, f.Detail, f.Fix = statusWarn, "not installed (project or user)", fix
		}
		out = append(out, f)
	}
	dir := claudecode.ProjectsDir(home)
	f := finding{Check: "claude sessions"}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		f.Status, f.Detail = statusWarn, dir+" does not exist yet: no session of Claude Code here"
	case err != nil:
		f.Status, f.Detail, f.Fix = statusFail, fmt.Sprintf("%s cannot be read: %v", dir, err), "chmod u+rx "+dir
	default:
		f.Status, f.Detail = statusOK, fmt.Sprintf("%s: %d project folders", dir, len(entries))
	}
	return append(out, f)
}

// checkOthers checks Codex, Gemini CLI and opencode: each client on PATH
// and whether cairn is installed for it.
func (m *Main) checkOthers() []finding {
	project, _ := m.projectRoot()
	has := func(path string, missing func([]byte) bool) bool {
		data, err := readSettings(path)
		return err == nil && !missing(data)
	}
	noGeminiHooks := func(b []byte) bool {
		_, c, err := claudecode.EditHooks(b, gemini.HookEvents, geminiHookEntries("cairn"))
		return c || err != nil
	}
	installed := map[string]bool{
		"codex": has(filepath.Join(m.codexHome(), "config.toml"), func(b []byte) bool { _, c, err := codex.InstallMCP(b, "cairn"); return c || err != nil }),
		"gemini": has(gemini.SettingsPath(m.geminiHome(), project, false), noGeminiHooks) ||
			has(gemini.SettingsPath(m.geminiHome(), project, true), noGeminiHooks),
	}
	if _, err := os.Stat(opencode.PluginPath(project)); err == nil {
		installed["opencode"] = true
	}
	var out []finding
	for _, c := range []struct{ bin, name, what string }{
		{"codex", "Codex", "MCP server"},
		{"gemini", "Gemini CLI", "hooks"},
		{"opencode", "opencode", "plugin"},
	} {
		v := m.clientVersion(c.bin, c.name)
		out = append(out, v)
		f := finding{Check: c.bin + " " + c.what}
		switch {
		case installed[c.bin]:
			f.Status, f.Detail = statusOK, "installed"
		case v.Status == statusOK:
			f.Status, f.Detail, f.Fix = statusWarn, "not installed", "cairn install "+c.bin
		default:
			continue
		}
		out = append(out, f)
	}
	return out
}

// clientVersion finds a client on PATH and asks its version; a client
// not found is only said.
func (m *Main) clientVersion(bin, name string) finding {
	f := finding{Check: bin}
	path, ok := m.lookPath(bin)
	if !ok {
		f.Status, f.Detail = statusNone, name+" not found on PATH"
		return f
	}
	v, err := m.runVersion(path)
	if err != nil {
		f.Status, f.Detail = statusFail, fmt.Sprintf("%s --version: %v", path, err)
		return f
	}
	f.Status, f.Detail = statusOK, fmt.Sprintf("%s %s (%s)", name, v, path)
	return f
}
