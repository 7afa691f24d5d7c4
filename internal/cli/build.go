package cli

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"

	"github.com/cairn-dev/cairn"
)

// cairn is built two ways. The complete build (go build ./cmd/cairn) has
// every command and store. The lean build (go build -tags lean
// ./cmd/cairn), which the README installs as cairn, leaves out the
// libraries that talk to other programs: the MCP SDK, net/http and pgx.
// Linked, their package initialisation alone costs every process about
// 7 ms on a 2-core VM, a third of `cairn --help`, and Claude Code starts
// a hook process at every prompt and tool call. The lean build hands what
// needs them to cairn-full, the complete build installed beside it,
// before doing anything else: the process becomes cairn-full, with the
// same arguments, streams and environment.

// fullName is the complete build's executable name.
const fullName = "cairn-full"

// needsFull reports whether an invocation needs what the lean build
// leaves out: the MCP server, the viewer, eval's model API, or a
// PostgreSQL store named by an argument or $CAIRN_STORE (the only ways to
// name one).
func needsFull(args []string, getenv func(string) string) bool {
	if len(args) == 0 {
		return false
	}
	switch args[0] {
	case "mcp", "serve":
		return true
	}
	if isPostgres(getenv("CAIRN_STORE")) {
		return true
	}
	for _, a := range args[1:] {
		name, value, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if isPostgres(a) || isPostgres(value) || (args[0] == "eval" && name == "model" && strings.HasPrefix(a, "-")) {
			return true
		}
	}
	return false
}

// fullFile is cairn-full's file name on goos: Windows runs only files
// named .exe.
func fullFile(goos string) string {
	if goos == "windows" {
		return fullName + ".exe"
	}
	return fullName
}

// fullBinary finds cairn-full: $CAIRN_FULL, else beside this executable,
// else on PATH.
func fullBinary(getenv func(string) string) (string, error) {
	if path := getenv("CAIRN_FULL"); path != "" {
		return path, nil
	}
	self, err := os.Executable()
	if err == nil {
		if real, err := filepath.EvalSymlinks(self); err == nil {
			self = real
		}
		beside := filepath.Join(filepath.Dir(self), fullFile(runtime.GOOS))
		if info, err := os.Stat(beside); err == nil && !info.IsDir() {
			return beside, nil
		}
	}
	if path, err := exec.LookPath(fullName); err == nil {
		return path, nil
	}
	where := "beside this cairn"
	if self != "" {
		where = filepath.Join(filepath.Dir(self), fullFile(runtime.GOOS))
	}
	return "", cairn.Errorf(cairn.ENOTFOUND, "This is the lean cairn; this command needs cairn-full (the MCP server, the viewer, PostgreSQL stores, eval's model API), which is neither at %s nor on PATH. Install it beside this cairn: CGO_ENABLED=0 GOBIN=%s go install github.com/cairn-dev/cairn/cmd/cairn-full@latest (from cairn's source: go build -o %s ./cmd/cairn-full)", where, filepath.Dir(where), where)
}

// handOff runs cairn-full with args in this process's place. It returns
// only if that fails; where a process cannot be replaced (Windows),
// cairn-full runs as a child and its exit status is this one's.
func (m *Main) handOff(args []string) error {
	if m.Getenv("CAIRN_HANDOFF") != "" {
		return cairn.Errorf(cairn.EINVALID, "cairn-full is a lean build too ($CAIRN_FULL, or the %s beside cairn or on PATH): build it without -tags lean.", fullName)
	}
	path, err := fullBinary(m.Getenv)
	if err != nil {
		return err
	}
	env := []string{"CAIRN_HANDOFF=1"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "CAIRN_HANDOFF=") {
			env = append(env, kv)
		}
	}
	if runtime.GOOS != "windows" {
		err := syscall.Exec(path, append([]string{path}, args...), env)
		return fmt.Errorf("run %s: %w", path, err)
	}
	cmd := exec.Command(path, args...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = m.Stdin, m.Stdout, m.Stderr, env
	err = cmd.Run()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return handedOff(exit.ExitCode())
	}
	return err
}

// handedOff is cairn-full's exit status, when it ran as a child: it has
// said what there was to say.
type handedOff int

func (h handedOff) Error() string { return fmt.Sprintf("cairn-full exited with status %d", int(h)) }
