package bench

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn/internal/rusage"
)

// A Command is one whole process to time: what a person or a hook waits
// for, startup included.
type Command struct {
	Name string
	Args []string // Args[0] is the program
}

// Run runs c once and returns how long the process took, start to exit,
// and the CPU time (user and system) it used. Exit status 1 with output is
// taken as "no match" (rg, grep), not an error.
func (c Command) Run() (wall, cpu time.Duration, err error) {
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	start := time.Now()
	out, err := cmd.Output()
	wall = time.Since(start)
	cpu = rusage.CPU(cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil && !(errors.As(err, &ee) && ee.ExitCode() == 1) {
		return wall, cpu, fmt.Errorf("%s: %v: %s", c.Name, err, out)
	}
	return wall, cpu, nil
}

// Timings are the wall and CPU times of one command's runs: on a shared
// machine the wall time also measures the neighbours, the CPU time mostly
// not.
type Timings struct{ Wall, CPU Latencies }

// Alternated times each group of commands in turn, each command of a
// group after the other, runs times over the list, so all see the same
// machine at the same moments: on a shared machine, figures measured apart
// cannot be compared. It returns the timings of each position in a group
// (every group has as many commands as the first), in the order run.
func Alternated(groups [][]Command, runs int) ([]Timings, error) {
	if len(groups) == 0 {
		return nil, nil
	}
	out := make([]Timings, len(groups[0]))
	for range runs {
		for _, g := range groups {
			if len(g) != len(out) {
				return nil, fmt.Errorf("a group of %d commands among groups of %d", len(g), len(out))
			}
			for i, c := range g {
				w, cpu, err := c.Run()
				if err != nil {
					return nil, err
				}
				out[i].Wall, out[i].CPU = append(out[i].Wall, w), append(out[i].CPU, cpu)
			}
		}
	}
	return out, nil
}

// Interleaved times each command in turn, runs times over the list, as
// [Alternated] does for groups, and returns each command's timings.
func Interleaved(cmds []Command, runs int) ([]Timings, error) {
	return Alternated([][]Command{cmds}, runs)
}

// BuildHello builds a Go hello world into dir and returns its path: the
// yardstick of a whole process's startup, run beside cairn's on the same
// machine at the same moments.
func BuildHello(dir string) (string, error) {
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	for name, text := range map[string]string{
		"go.mod":  "module hello\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"os\"\n\nfunc main() { os.Stdout.WriteString(\"hello\\n\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			return "", err
		}
	}
	bin := filepath.Join(dir, "hello-bin")
	return bin, goBuild(src, bin, ".")
}

// Build builds the package pkg (an import path, or a path from the module's
// root) into the file out as the README installs cairn: without cgo, so
// that the binary is static and starts without the dynamic loader.
func Build(out, pkg string) error { return goBuild("", out, pkg) }

// BuildCairn builds cairn into the file out as the README installs it:
// the lean build (-tags lean), and cairn-full, the complete build, beside
// it.
func BuildCairn(out string) error {
	if err := goBuild("", out, "github.com/cairn-dev/cairn/cmd/cairn", "-tags", "lean"); err != nil {
		return err
	}
	return goBuild("", filepath.Join(filepath.Dir(out), "cairn-full"), "github.com/cairn-dev/cairn/cmd/cairn-full")
}

func goBuild(dir, out, pkg string, flags ...string) error {
	build := exec.Command("go", append(append([]string{"build"}, flags...), "-o", out, pkg)...)
	build.Dir = dir
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if b, err := build.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s: %v\n%s", pkg, err, b)
	}
	return nil
}
