package claudetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// A Term is the real client running interactively, its full-screen
// interface in a pseudo-terminal: a test types into it as a person does
// ([Term.Type]) and reads what it shows ([Term.Screen], [Term.WaitFor]).
type Term struct {
	tb     testing.TB
	cmd    *exec.Cmd
	master *os.File
	cancel context.CancelFunc

	mu   sync.Mutex
	out  bytes.Buffer // everything the client wrote, escapes and all
	last time.Time    // when it last wrote
	scr  *screen      // what it shows
	done chan struct{}
	err  error // how the client ended, once done is closed
}

// TermRows and TermCols are the size of the terminal a [Term] runs in.
const TermRows, TermCols = 50, 160

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
// test ends, if [Term.Close] has not ended it.
func StartTerm(tb testing.TB, env []string, bin, home, cwd, baseURL string, args ...string) *Term {
	tb.Helper()
	master, slave, err := openPTY()
	if err != nil {
		tb.Fatalf("pseudo-terminal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = cwd
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8", "TZ=UTC", "TERM=xterm-256color",
		"ANTHROPIC_BASE_URL=" + baseURL, "ANTHROPIC_API_KEY=" + apiKey,
		"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1",
	}, env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		cancel()
		master.Close()
		slave.Close()
		tb.Fatalf("claude %v: %v", args, err)
	}
	slave.Close()
	t := &Term{tb: tb, cmd: cmd, master: master, cancel: cancel, done: make(chan struct{}), scr: newScreen(TermRows, TermCols)}
	go t.read()
	tb.Cleanup(t.Close)
	return t
}

func (t *Term) read() {
	buf := make([]byte, 32<<10)
	for {
		n, err := t.master.Read(buf)
		t.mu.Lock()
		t.out.Write(buf[:n])
		if n > 0 {
			t.last = time.Now()
		}
		t.scr.Write(buf[:n])
		t.mu.Unlock()
		if err != nil { // EIO once the client and its children closed the terminal
			break
		}
	}
	err := t.cmd.Wait()
	t.mu.Lock()
	t.err = err
	t.mu.Unlock()
	close(t.done)
}

// Type writes s and then Enter, as a person types a line. The keys are
// written a few at a time: the client reads a burst that ends in a
// carriage return as a paste, not as a line submitted.
func (t *Term) Type(s string) {
	t.tb.Helper()
	t.Keys(s)
	time.Sleep(300 * time.Millisecond)
	t.Keys("\r")
}

// Keys writes s as it is: a key, or an escape sequence.
func (t *Term) Keys(s string) {
	t.tb.Helper()
	if _, err := t.master.Write([]byte(s)); err != nil {
		t.tb.Fatalf("typing %q: %v", s, err)
	}
}

// Raw returns everything the client wrote so far, terminal escapes and all.
func (t *Term) Raw() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

// Mark returns a position in what the client wrote, for [Term.TextSince]:
// what it writes after a keystroke, not what it showed before.
func (t *Term) Mark() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.Len()
}

// Screen returns what the terminal shows now, row by row.
func (t *Term) Screen() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.scr.String()
}

// TextSince returns what the client wrote from a [Term.Mark] on, as
// [Plain] text: what scrolled off the screen too, in the order it was
// drawn.
func (t *Term) TextSince(mark int) string {
	raw := t.Raw()
	return Plain(raw[min(mark, len(raw)):])
}

// WaitFor waits until the text the client wrote after mark holds want,
// and fails the test with the screen if it does not within timeout or
// the client ends first.
func (t *Term) WaitFor(mark int, want string, timeout time.Duration) {
	t.tb.Helper()
	if !t.await(func() bool { return strings.Contains(t.TextSince(mark), want) }, timeout) {
		t.tb.Fatalf("the client did not write %q within %v; the screen:\n%s", want, timeout, t.Screen())
	}
}

// WaitScreen waits until the screen shows a line for which match
// returns true, and returns that line; it fails the test with the screen
// if none does within timeout or the client ends first.
func (t *Term) WaitScreen(what string, match func(line string) bool, timeout time.Duration) string {
	t.tb.Helper()
	var found string
	if !t.await(func() bool {
		for _, l := range strings.Split(t.Screen(), "\n") {
			if match(l) {
				found = l
				return true
			}
		}
		return false
	}, timeout) {
		t.tb.Fatalf("the screen did not show %s within %v; it shows:\n%s", what, timeout, t.Screen())
	}
	return found
}

// Idle waits until the client has written nothing for quiet (while it
// works, its spinner moves), and fails the test if it does not within
// timeout.
func (t *Term) Idle(quiet, timeout time.Duration) {
	t.tb.Helper()
	if !t.await(func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return time.Since(t.last) >= quiet
	}, timeout) {
		t.tb.Fatalf("the client did not settle within %v; the screen:\n%s", timeout, t.Screen())
	}
}

// await polls cond until it holds, the client ends or timeout passes.
func (t *Term) await(cond func() bool, timeout time.Duration) bool {
	deadline := time.Now().Add(timeout)
	for {
		if cond() {
			return true
		}
		select {
		case <-t.done:
			return cond()
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return false
		}
	}
}

// Close ends the client: /exit as a person would, then a kill if it has
// not ended within 20 seconds. It returns how the client ended.
func (t *Term) Close() {
	select {
	case <-t.done:
	default:
		_, _ = t.master.Write([]byte("/exit"))
		time.Sleep(300 * time.Millisecond)
		_, _ = t.master.Write([]byte("\r"))
		select {
		case <-t.done:
		case <-time.After(20 * time.Second):
			t.cancel()
			<-t.done
		}
	}
	t.cancel()
	t.master.Close()
}

// Exited waits up to timeout for the client to end by itself and reports
// whether it did, and with what error.
func (t *Term) Exited(timeout time.Duration) (bool, error) {
	select {
	case <-t.done:
		t.mu.Lock()
		defer t.mu.Unlock()
		return true, t.err
	case <-time.After(timeout):
		return false, nil
	}
}

var (
	cursorRight = regexp.MustCompile(`\x1b\[(\d*)C`)
	cursorCol   = regexp.MustCompile(`\x1b\[\d*G`)
	cursorMove  = regexp.MustCompile(`\x1b\[[\d;]*[ABHf]`)
	escapes     = regexp.MustCompile(`\x1b\[[0-9;?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_][^\x1b]*\x1b\\|\x1b[()*+][0-9A-Za-z]|\x1b[=>78DEHMc]`)
)

// Plain strips terminal escapes from what a terminal program wrote: a
// cursor move right becomes the spaces it skips, a jump to a column one
// space (the client draws words so), a move up or down or to a row a new
// line; carriage returns go. What it returns is the order things were
// drawn in, not the screen's layout: assert on phrases, not on lines.
func Plain(s string) string {
	s = cursorRight.ReplaceAllStringFunc(s, func(m string) string {
		n, err := strconv.Atoi(m[2 : len(m)-1])
		if err != nil || n < 1 {
			n = 1
		}
		return strings.Repeat(" ", min(n, TermCols))
	})
	s = cursorCol.ReplaceAllString(s, " ")
	s = cursorMove.ReplaceAllString(s, "\n")
	s = escapes.ReplaceAllString(s, "")
	return strings.ReplaceAll(s, "\r", "")
}

// openPTY opens a pseudo-terminal pair of [TermRows]×[TermCols]: the
// master the test reads and writes, the slave the client's terminal.
func openPTY() (master, slave *os.File, err error) {
	master, err = os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	fail := func(err error) (*os.File, *os.File, error) {
		master.Close()
		return nil, nil, err
	}
	var unlock int32
	if err := ioctl(master, syscall.TIOCSPTLCK, unsafe.Pointer(&unlock)); err != nil {
		return fail(fmt.Errorf("unlockpt: %w", err))
	}
	var n uint32
	if err := ioctl(master, syscall.TIOCGPTN, unsafe.Pointer(&n)); err != nil {
		return fail(fmt.Errorf("ptsname: %w", err))
	}
	slave, err = os.OpenFile("/dev/pts/"+strconv.Itoa(int(n)), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		return fail(err)
	}
	ws := struct{ rows, cols, x, y uint16 }{TermRows, TermCols, 0, 0}
	if err := ioctl(slave, syscall.TIOCSWINSZ, unsafe.Pointer(&ws)); err != nil {
		slave.Close()
		return fail(fmt.Errorf("window size: %w", err))
	}
	return master, slave, nil
}

func ioctl(f *os.File, req uint, arg unsafe.Pointer) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var errno syscall.Errno
	if err := rc.Control(func(fd uintptr) {
		_, _, errno = syscall.Syscall(syscall.SYS_IOCTL, fd, uintptr(req), uintptr(arg))
	}); err != nil {
		return err
	}
	if errno != 0 {
		return errors.New(errno.Error())
	}
	return nil
}
