package bench

import (
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"time"

	"github.com/cairn-dev/cairn/internal/rusage"
)

// A Footprint is what one whole process took: wall and CPU time, and its
// peak resident memory.
type Footprint struct {
	Wall, CPU time.Duration
	PeakRSS   int64 // bytes
}

// RunFootprint runs c once, as [Command.Run] does, and returns its
// footprint, the peak resident memory included (the kernel's maxrss).
func RunFootprint(c Command, env []string) (Footprint, error) {
	cmd := exec.Command(c.Args[0], c.Args[1:]...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	f := Footprint{Wall: time.Since(start)}
	f.CPU, f.PeakRSS = rusage.CPU(cmd.ProcessState), rusage.PeakRSS(cmd.ProcessState)
	var ee *exec.ExitError
	if err != nil {
		if errors.As(err, &ee) {
			return f, fmt.Errorf("%s: exit %d: %s", c.Name, ee.ExitCode(), out)
		}
		return f, fmt.Errorf("%s: %v", c.Name, err)
	}
	return f, nil
}

// Footprints are several runs of one command.
type Footprints []Footprint

// Median returns the runs' median wall and CPU time and their largest
// peak resident memory.
func (fs Footprints) Median() Footprint {
	if len(fs) == 0 {
		return Footprint{}
	}
	wall, cpu := make([]time.Duration, len(fs)), make([]time.Duration, len(fs))
	var rss int64
	for i, f := range fs {
		wall[i], cpu[i] = f.Wall, f.CPU
		rss = max(rss, f.PeakRSS)
	}
	sort.Slice(wall, func(i, j int) bool { return wall[i] < wall[j] })
	sort.Slice(cpu, func(i, j int) bool { return cpu[i] < cpu[j] })
	return Footprint{Wall: wall[len(wall)/2], CPU: cpu[len(cpu)/2], PeakRSS: rss}
}
