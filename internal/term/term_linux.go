package term

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// A Term is a program running interactively, its full-screen interface
// in a pseudo-terminal: a test types into it as a person does
// ([Term.Type]) and reads what it shows ([Term.Screen], [Term.WaitFor]).
type Term struct {
	tb     testing.TB
	cmd    *exec.Cmd
	master *os.File
	cancel context.CancelFunc
	quit   []string

	mu   sync.Mutex
	out  bytes.Buffer // everything the program wrote, escapes and all
	last time.Time    // when it last wrote
	scr  *screen      // what it shows
	done chan struct{}
	err  error // how the program ended, once done is closed
}

// A Command is the program a [Term] runs and how.
type Command struct {
	Path string
	Args []string
	Dir  string
	// Env is the program's environment beside PATH (the test's), LANG,
	// TZ and TERM (xterm-256color): nothing else of the real environment
	// reaches it. A name set here too (PATH with a scratch folder first)
	// takes the value given here.
	Env []string
	// Quit is what a person types to end the program, one key or line a
	// time (a pause between them), for [Term.Close]: "/exit", "\r".
	Quit []string
}

// Start starts c in a pseudo-terminal of [Rows]×[Cols]. The program is
// killed when the test ends, if [Term.Close] has not ended it, and after
// ten minutes in any case.
func Start(tb testing.TB, c Command) *Term {
	tb.Helper()
	master, slave, err := openPTY()
	if err != nil {
		tb.Fatalf("pseudo-terminal: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	cmd := exec.CommandContext(ctx, c.Path, c.Args...)
	cmd.Dir = c.Dir
	cmd.Env = append([]string{
		"PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8", "TZ=UTC", "TERM=xterm-256color",
	}, c.Env...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = slave, slave, slave
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		cancel()
		master.Close()
		slave.Close()
		tb.Fatalf("%s %v: %v", c.Path, c.Args, err)
	}
	slave.Close()
	t := &Term{tb: tb, cmd: cmd, master: master, cancel: cancel, quit: c.Quit, done: make(chan struct{}), scr: newScreen(Rows, Cols)}
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
		if r := t.scr.Replies(); len(r) > 0 {
			_, _ = t.master.Write(r)
		}
		t.mu.Unlock()
		if err != nil { // EIO once the program and its children closed the terminal
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
// written a few at a time: the program reads a burst that ends in a
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

// Raw returns everything the program wrote so far, terminal escapes and all.
func (t *Term) Raw() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.out.String()
}

// Mark returns a position in what the program wrote, for [Term.TextSince]:
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

// TextSince returns what the program wrote from a [Term.Mark] on, as
// [Plain] text: what scrolled off the screen too, in the order it was
// drawn.
func (t *Term) TextSince(mark int) string {
	raw := t.Raw()
	return Plain(raw[min(mark, len(raw)):])
}

// WaitFor waits until the text the program wrote after mark holds want,
// and fails the test with the screen if it does not within timeout or
// the program ends first.
func (t *Term) WaitFor(mark int, want string, timeout time.Duration) {
	t.tb.Helper()
	if !t.await(func() bool { return strings.Contains(t.TextSince(mark), want) }, timeout) {
		t.tb.Fatalf("the program did not write %q within %v; the screen:\n%s", want, timeout, t.Screen())
	}
}

// WaitScreen waits until the screen shows a line for which match
// returns true, and returns that line; it fails the test with the screen
// if none does within timeout or the program ends first.
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

// Ask types prompt as a person does, once the program is ready for it:
// the screen shows a line for which ready returns true (its prompt box,
// its footer) and the program has written nothing for two seconds (keys
// typed while it still draws its start may be lost). Enter goes once the
// screen shows the prompt and the program has settled: a busy program
// reads the keys and Enter in one burst, a paste, and the Enter in it as
// a new line. It then waits until the screen shows a line holding answer
// and the program has settled again. Each wait fails the test after
// timeout.
func (t *Term) Ask(ready func(line string) bool, prompt, answer string, timeout time.Duration) {
	t.tb.Helper()
	t.WaitScreen("the program ready for a prompt", ready, timeout)
	t.Idle(2*time.Second, timeout)
	t.Keys(prompt)
	t.WaitScreen(fmt.Sprintf("the prompt typed, %q", prompt), func(l string) bool { return strings.Contains(l, prompt) }, timeout)
	t.Idle(time.Second, timeout)
	t.Keys("\r")
	t.WaitScreen(fmt.Sprintf("the answer %q", answer), func(l string) bool { return strings.Contains(l, answer) }, timeout)
	t.Idle(2*time.Second, timeout)
}

// Idle waits until the program has written nothing for quiet (while it
// works, its spinner moves), and fails the test if it does not within
// timeout.
func (t *Term) Idle(quiet, timeout time.Duration) {
	t.tb.Helper()
	if !t.await(func() bool {
		t.mu.Lock()
		defer t.mu.Unlock()
		return time.Since(t.last) >= quiet
	}, timeout) {
		t.tb.Fatalf("the program did not settle within %v; the screen:\n%s", timeout, t.Screen())
	}
}

// await polls cond until it holds, the program ends or timeout passes.
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

// Close ends the program: what [Command.Quit] says a person types, then
// a kill if it has not ended within 20 seconds.
func (t *Term) Close() {
	select {
	case <-t.done:
	default:
		for i, k := range t.quit {
			if i > 0 {
				time.Sleep(300 * time.Millisecond)
			}
			_, _ = t.master.Write([]byte(k))
		}
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

// Exited waits up to timeout for the program to end by itself and reports
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

// openPTY opens a pseudo-terminal pair of [Rows]×[Cols]: the
// master the test reads and writes, the slave the program's terminal.
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
	ws := struct{ rows, cols, x, y uint16 }{Rows, Cols, 0, 0}
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
