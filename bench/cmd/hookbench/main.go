// Command hookbench times cairn's Claude Code hooks as Claude Code runs
// them: a fresh `cairn hook EVENT` process per call, hook JSON on stdin, in
// a workspace whose store holds one long session (100 MB by default).
//
//	go run ./bench/cmd/hookbench -size 1GB
//	go run ./bench/cmd/hookbench -size 1GB -cairn NEW -baseline OLD
//
// It prints p50/p90/max wall time for every event cairn install claude
// registers, each as the session's life fires it: SessionStart (the
// context that must be ready before the agent's first turn);
// UserPromptSubmit, Stop and a manual PreCompact after one appended round
// (an incremental inscription; UserPromptSubmit also reads the context's
// occupancy for the pressure note); PostToolUse (the exhaustion check of
// the transcript's end); PreToolUse of the sub-agent tool, SubagentStart
// and SubagentStop in turn (a hand-off in state.json); SessionEnd after
// one appended round, then again with nothing new. An automatic PreCompact
// (the context ran out: a revived session exported) is timed with -auto.
// Each hook call is paired with a Go hello world run right after it, so
// that the figures say what the machine gave every process then; with
// -baseline the older binary's call of each event runs right after the
// newer's, on the same store, with a round of its own appended first.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/rusage"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

func run() error {
	size := flag.String("size", "100MB", "size of the long session: 1GB, 200MB, or bytes")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "hookbench"), "work folder (workspace and session kept between runs)")
	samples := flag.String("samples", "testdata/claudecode", "sample transcripts to build from")
	cairnBin := flag.String("cairn", "", "the cairn binary (default: built from ./cmd/cairn as the README installs it, cairn-full beside it)")
	baseline := flag.String("baseline", "", "an older cairn binary, timed call by call beside -cairn's")
	runs := flag.Int("runs", 40, "hook calls to time per event")
	only := flag.String("events", "", "comma-separated labels of the events to time (default: all)")
	auto := flag.Bool("auto", false, "also time PreCompact auto (the context ran out: a revived session is exported each time)")
	flag.Parse()
	ctx := context.Background()
	n, err := bench.ParseSize(*size)
	if err != nil {
		return err
	}

	bin := *cairnBin
	if bin == "" {
		bin = filepath.Join(*dir, "cairn")
		if err := bench.BuildCairn(bin); err != nil {
			return err
		}
	}
	bins := []string{bin}
	if *baseline != "" {
		bins = append(bins, *baseline)
	}
	hello, err := bench.BuildHello(*dir)
	if err != nil {
		return err
	}
	// Every binary timed, the yardstick too, is a copy (bench.Stage).
	staged, err := bench.Stage(*dir, append(bins, hello)...)
	if err != nil {
		return err
	}
	bins, hello = staged[:len(bins)], staged[len(bins)]
	bin = bins[0]
	ws := filepath.Join(*dir, fmt.Sprintf("ws-%d", n))
	session, err := ensureWorkspace(ctx, bin, ws, *samples, n)
	if err != nil {
		return err
	}
	info, err := os.Stat(session)
	if err != nil {
		return err
	}
	fmt.Printf("store holds a %.0f MB session; %s\n", float64(info.Size())/1e6, loadavg())
	s := &sessionFile{path: session, id: strings.TrimSuffix(filepath.Base(session), ".jsonl"), at: time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)}
	if s.g, err = bench.NewGenerator(*samples, 2); err != nil {
		return err
	}
	for _, sc := range scenarios(s, *auto) {
		if *only != "" && !selected(*only, sc) {
			continue
		}
		lat, hw, err := timeKept(bins, hello, ws, s, sc, *runs)
		if err != nil {
			return err
		}
		for i, c := range sc.calls {
			for b := range bins {
				report(c.label+suffix(b, len(bins)), lat[b][i], hw, c.note)
			}
		}
	}
	fmt.Println(loadavg())
	return nil
}

// A call is one hook event as a scenario fires it.
type call struct {
	label, event string
	fields       map[string]any // hook input beside session_id, transcript_path, cwd, hook_event_name
	appendRound  bool           // one round appended to the session before the call (each binary's)
	want         string         // what the output must hold, if anything
	note         string
}

// A scenario is calls made in turn, each iteration. keep names workspace
// files put back as they were once it is timed: each hand-off PreToolUse
// records stays in state.json, which every later hook reads (three times
// at a session's end), so that they would time a workspace that grew with
// each run of the benchmark.
type scenario struct {
	calls []call
	keep  []string
}

func scenarios(s *sessionFile, auto bool) []scenario {
	agentInput := json.RawMessage(`{"description":"Measure the hooks","prompt":"Time every hook on the long session and report p50 and p90."}`)
	writeInput := json.RawMessage(`{"file_path":"/tmp/bench/notes.md","content":"measured"}`)
	sc := []scenario{
		{calls: []call{{label: "SessionStart", event: "SessionStart", fields: map[string]any{"source": "startup"}, want: `"additionalContext"`, note: "source startup"}}},
		{calls: []call{{label: "UserPrompt", event: "UserPromptSubmit", fields: map[string]any{"prompt": "Carry on with the benchmark."}, appendRound: true, note: "one round appended before each"}}},
		{calls: []call{{label: "PostToolUse", event: "PostToolUse", fields: map[string]any{"tool_name": "Write", "tool_input": writeInput, "tool_response": map[string]any{"type": "create"}}, note: "a Write"}}},
		{calls: []call{{label: "Stop", event: "Stop", appendRound: true, note: "one round appended before each"}}},
		{calls: []call{
			{label: "PreToolUse", event: "PreToolUse", fields: map[string]any{"tool_name": "Agent", "tool_input": agentInput, "tool_use_id": "toolu_bench"}, note: "the Agent tool: a hand-off"},
			{label: "SubagentStart", event: "SubagentStart", fields: map[string]any{"agent_id": "a1b2c3", "agent_type": "general-purpose"}, want: `"additionalContext"`, note: "after PreToolUse"},
			{label: "SubagentStop", event: "SubagentStop", fields: map[string]any{"agent_id": "a1b2c3", "last_assistant_message": "Measured: every hook under 15 ms."}, note: "after SubagentStart"},
		}, keep: []string{"state.json"}},
		{calls: []call{{label: "PreCompact", event: "PreCompact", fields: map[string]any{"trigger": "manual"}, appendRound: true, note: "manual; one round appended before each"}}},
		{calls: []call{
			{label: "SessionEnd", event: "SessionEnd", fields: map[string]any{"reason": "other"}, appendRound: true, note: "one round appended before each"},
			{label: "SessionEnd 2", event: "SessionEnd", fields: map[string]any{"reason": "other"}, note: "again, nothing new"},
		}},
	}
	if auto {
		sc = append(sc, scenario{calls: []call{{label: "PreCompact a", event: "PreCompact", fields: map[string]any{"trigger": "auto"}, appendRound: true, note: "auto: a revived session exported; one round appended before each"}}})
	}
	return sc
}

func selected(only string, sc scenario) bool {
	for _, name := range strings.Split(only, ",") {
		for _, c := range sc.calls {
			if strings.TrimSpace(name) == c.label {
				return true
			}
		}
	}
	return false
}

// A sessionFile is the long session, which scenarios append rounds to.
type sessionFile struct {
	path, id string
	g        *bench.Generator
	at       time.Time
	n        int
}

// appendRound adds one round to the session, a minute after the last.
func (s *sessionFile) appendRound() error {
	s.n++
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.Write(s.g.Round(s.id, s.at.Add(time.Duration(s.n)*time.Minute)))
	return err
}

func (s *sessionFile) input(ws string, c call) []byte {
	in := map[string]any{"session_id": s.id, "transcript_path": s.path, "cwd": ws, "hook_event_name": c.event}
	for k, v := range c.fields {
		in[k] = v
	}
	b, _ := json.Marshal(in)
	return b
}

// timeKept is timeScenario with sc's kept files put back after.
func timeKept(bins []string, hello, ws string, s *sessionFile, sc scenario, runs int) ([][]bench.Timings, bench.Latencies, error) {
	for _, name := range sc.keep {
		path := filepath.Join(ws, name)
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, nil, err
		}
		defer os.WriteFile(path, data, 0o644)
	}
	return timeScenario(bins, hello, ws, s, sc, runs)
}

// timeScenario runs sc's calls in turn runs times (after one untimed
// round), each call with each binary in turn, and the hello world after
// each iteration's calls. lat[b][i] are binary b's times of call i.
func timeScenario(bins []string, hello, ws string, s *sessionFile, sc scenario, runs int) (lat [][]bench.Timings, hw bench.Latencies, err error) {
	yardstick := bench.Command{Name: "hello", Args: []string{hello}}
	lat = make([][]bench.Timings, len(bins))
	for b := range bins {
		lat[b] = make([]bench.Timings, len(sc.calls))
	}
	for i := 0; i <= runs; i++ {
		for b, bin := range bins {
			for j, c := range sc.calls {
				if c.appendRound {
					if err := s.appendRound(); err != nil {
						return nil, nil, err
					}
				}
				wall, cpu, err := hook(bin, ws, c, s.input(ws, c))
				if err != nil {
					return nil, nil, err
				}
				if i > 0 {
					t := &lat[b][j]
					t.Wall, t.CPU = append(t.Wall, wall), append(t.CPU, cpu)
				}
			}
		}
		h, _, err := yardstick.Run()
		if err != nil {
			return nil, nil, err
		}
		if i > 0 {
			hw = append(hw, h)
		}
	}
	return lat, hw, nil
}

// hook runs `bin hook EVENT` once in ws and returns how long it took, and
// the CPU time it used.
func hook(bin, ws string, c call, input []byte) (wall, cpu time.Duration, err error) {
	cmd := exec.Command(bin, "hook", c.event)
	cmd.Dir = ws
	// The session lives in the workspace, not under ~/.claude/projects:
	// the hooks read a transcript only from a folder they are told of.
	cmd.Env = append(os.Environ(), "CAIRN_TRANSCRIPT_DIRS="+ws)
	cmd.Stdin = bytes.NewReader(input)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	t := time.Now()
	out, err := cmd.Output()
	wall = time.Since(t)
	if err != nil || stderr.Len() > 0 {
		return 0, 0, fmt.Errorf("%s hook %s: %v: %s", bin, c.event, err, stderr.String())
	}
	if c.want != "" && !bytes.Contains(out, []byte(c.want)) {
		return 0, 0, fmt.Errorf("%s hook %s printed no %s: %s", bin, c.event, c.want, out)
	}
	return wall, rusage.CPU(cmd.ProcessState), nil
}

// ensureWorkspace makes ws a cairn workspace with a frame in progress and
// one long session inscribed, and returns the session's path.
func ensureWorkspace(ctx context.Context, bin, ws, samples string, size int64) (string, error) {
	if paths, _ := filepath.Glob(filepath.Join(ws, "*.jsonl")); len(paths) == 1 {
		return paths[0], nil
	}
	os.RemoveAll(ws)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return "", err
	}
	g, err := bench.NewGenerator(samples, 1)
	if err != nil {
		return "", err
	}
	path, _, err := g.Session(ws, size)
	if err != nil {
		return "", err
	}
	for _, args := range [][]string{
		{"init"},
		{"mission", "set", "Benchmark the hooks", "--workspace", ws},
		{"push", "Measure", "--root", "--criteria", "SessionStart p50 under 30 ms"},
		{"push", "SessionStart", "--criteria", "context within 10,000 characters"},
		{"import", "-q", path},
	} {
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			return "", fmt.Errorf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	return path, nil
}

// suffix names binary b of n in a report line: the baseline is "old".
func suffix(b, n int) string {
	if n == 1 {
		return ""
	}
	return []string{" new", " old"}[b]
}

// report prints one hook's figures beside the hello world's of the same
// run: wall time, and the CPU time (user and system) the process used,
// which a busy machine changes less.
func report(label string, t bench.Timings, hw bench.Latencies, note string) {
	fmt.Printf("%-16s p50 %s, p90 %s, max %s, CPU p50 %s; hello world p50 %s (%d runs; %s)\n",
		label, ms(t.Wall.Percentile(50)), ms(t.Wall.Percentile(90)), ms(t.Wall.Percentile(100)), ms(t.CPU.Percentile(50)), ms(hw.Percentile(50)), len(t.Wall), note)
}

// loadavg is the machine's load average, as uptime prints it.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "load unknown"
	}
	return "load " + strings.Join(strings.Fields(string(b))[:3], " ")
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
