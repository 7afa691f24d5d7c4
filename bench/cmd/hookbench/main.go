// Command hookbench times cairn's Claude Code hooks as Claude Code runs
// them: a fresh `cairn hook EVENT` process per call, hook JSON on stdin, in
// a workspace whose store holds one long session (100 MB by default).
//
//	go run ./bench/cmd/hookbench -size 100MB
//
// It prints p50/p90/max wall time for SessionStart (the context that must
// be ready before the agent's first turn), and for Stop and
// UserPromptSubmit after one appended round (an incremental inscription;
// UserPromptSubmit also reads the context's occupancy for the pressure
// note). Each hook call is paired with a Go hello world run right after
// it, so that the figures say what the machine gave every process then.
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
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "hookbench:", err)
		os.Exit(1)
	}
}

func run() error {
	size := flag.Int64("size", 100<<20, "bytes of the long session")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "hookbench"), "work folder (workspace and session kept between runs)")
	samples := flag.String("samples", "testdata/claudecode", "sample transcripts to build from")
	cairnBin := flag.String("cairn", "", "the cairn binary (default: built from ./cmd/cairn as the README installs it, cairn-full beside it)")
	runs := flag.Int("runs", 40, "hook calls to time per event")
	flag.Parse()
	ctx := context.Background()

	bin := *cairnBin
	if bin == "" {
		bin = filepath.Join(*dir, "cairn")
		if err := bench.BuildCairn(bin); err != nil {
			return err
		}
	}
	hello, err := bench.BuildHello(*dir)
	if err != nil {
		return err
	}
	ws := filepath.Join(*dir, fmt.Sprintf("ws-%d", *size))
	session, err := ensureWorkspace(ctx, bin, ws, *samples, *size)
	if err != nil {
		return err
	}
	info, err := os.Stat(session)
	if err != nil {
		return err
	}
	id := strings.TrimSuffix(filepath.Base(session), ".jsonl")
	input := func(event string) []byte {
		b, _ := json.Marshal(map[string]string{"session_id": id, "transcript_path": session, "cwd": ws,
			"hook_event_name": event, "source": "startup"})
		return b
	}

	start, hw, err := timeHook(bin, hello, ws, "SessionStart", input("SessionStart"), *runs, nil)
	if err != nil {
		return err
	}
	report("SessionStart", start, hw, fmt.Sprintf("store holds a %.0f MB session", float64(info.Size())/1e6))

	g, err := bench.NewGenerator(*samples, 2)
	if err != nil {
		return err
	}
	at := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
	// appendRound adds one round to the session, a minute after the last.
	var i int
	appendRound := func() error {
		i++
		f, err := os.OpenFile(session, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer f.Close()
		_, err = f.Write(g.Round(id, at.Add(time.Duration(i)*time.Minute)))
		return err
	}
	stop, hw, err := timeHook(bin, hello, ws, "Stop", input("Stop"), *runs, appendRound)
	if err != nil {
		return err
	}
	report("Stop", stop, hw, "one round appended before each")

	// UserPromptSubmit inscribes the same way, then reads the context's
	// occupancy from the transcript's end (the pressure note).
	prompt, hw, err := timeHook(bin, hello, ws, "UserPromptSubmit", input("UserPromptSubmit"), *runs, appendRound)
	if err != nil {
		return err
	}
	report("UserPrompt", prompt, hw, "one round appended before each")
	return nil
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

// timeHook runs `cairn hook event` runs times (after one warm-up call),
// calling before (untimed) ahead of each, and the hello world after each.
func timeHook(bin, hello, ws, event string, input []byte, runs int, before func() error) (lat, hw bench.Latencies, err error) {
	yardstick := bench.Command{Name: "hello", Args: []string{hello}}
	for i := 0; i <= runs; i++ {
		if before != nil {
			if err := before(); err != nil {
				return nil, nil, err
			}
		}
		cmd := exec.Command(bin, "hook", event)
		cmd.Dir = ws
		// The session lives in the workspace, not under ~/.claude/projects:
		// the hooks read a transcript only from a folder they are told of.
		cmd.Env = append(os.Environ(), "CAIRN_TRANSCRIPT_DIRS="+ws)
		cmd.Stdin = bytes.NewReader(input)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		t := time.Now()
		out, err := cmd.Output()
		el := time.Since(t)
		if err != nil || stderr.Len() > 0 {
			return nil, nil, fmt.Errorf("hook %s: %v: %s", event, err, stderr.String())
		}
		if event == "SessionStart" && !bytes.Contains(out, []byte(`"additionalContext"`)) {
			return nil, nil, fmt.Errorf("hook SessionStart printed no context: %s", out)
		}
		h, _, err := yardstick.Run()
		if err != nil {
			return nil, nil, err
		}
		if i > 0 {
			lat, hw = append(lat, el), append(hw, h)
		}
	}
	return lat, hw, nil
}

// report prints one hook's figures beside the hello world's of the same run.
func report(event string, lat, hw bench.Latencies, note string) {
	fmt.Printf("%-13s p50 %s, p90 %s, max %s; hello world p50 %s (%d runs; %s)\n",
		event, ms(lat.Percentile(50)), ms(lat.Percentile(90)), ms(lat.Percentile(100)), ms(hw.Percentile(50)), len(lat), note)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }
