// Command pibench times what cairn's pi extension runs at each of pi's
// moments: a fresh `cairn hook --agent pi EVENT` process per call, the
// extension's JSON on stdin, in a workspace whose store holds a corpus of
// real transcripts (1 GB by default) beside a pi session of its own.
//
//	go run ./bench/cmd/pibench -size 1GB
//
// It prints p50/p90/max wall time for start (session_start's context),
// prompt (before_agent_start: the pressure note at pi's compaction point),
// compact (session_before_compact: a live import of one appended round and
// cairn's compaction), prepare (the same compaction up to the entry before
// the last reply, which the extension runs ahead of pi's compaction, not
// waited for; this binary only) and end (session_shutdown), each call
// paired with a Go hello world run right after it.
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
	"runtime/pprof"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/bench"
	"github.com/cairn-dev/cairn/internal/cli"
	"github.com/cairn-dev/cairn/internal/rusage"
	"github.com/cairn-dev/cairn/pi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "pibench:", err)
		os.Exit(1)
	}
}

func run() error {
	sizeFlag := flag.String("size", "1GB", "bytes of real transcripts in the store")
	dir := flag.String("dir", filepath.Join(os.TempDir(), "pibench"), "work folder (store, corpus and workspace kept between runs)")
	src := flag.String("transcripts", "../shared/testdata/transcripts", "real transcripts the corpus copies")
	turns := flag.Int("turns", 200, "prompts of the pi session, each answered")
	from := flag.String("session", "", "a pi session file (format 3) to start from instead of -turns made-up prompts")
	runs := flag.Int("runs", 21, "hook calls to time per event")
	profile := flag.String("cpuprofile", "", "write a CPU profile of -event's hook run in this process -runs times to this file, instead of timing processes")
	only := flag.String("event", "", "time (or profile) only this event: start, prompt, compact, prepare or end")
	cairnBin := flag.String("cairn", "", "the cairn binary to time (default: built from ./cmd/cairn as the README installs it)")
	old := flag.String("old", "", "another cairn binary (an older build) timed in turn with this one, call for call, each with its own input")
	flag.Parse()
	size, err := bench.ParseSize(*sizeFlag)
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
	hello, err := bench.BuildHello(*dir)
	if err != nil {
		return err
	}
	home := filepath.Join(*dir, "home")
	ws := filepath.Join(*dir, "ws")
	env := append(os.Environ(), "HOME="+home, "CAIRN_STORE="+filepath.Join(*dir, fmt.Sprintf("store-%d.db", size)))
	if err := ensureStore(bin, *dir, *src, size, env); err != nil {
		return err
	}
	os.RemoveAll(ws)
	os.RemoveAll(home)
	if err := os.MkdirAll(ws, 0o755); err != nil {
		return err
	}
	for _, args := range [][]string{{"init"}, {"install", "pi", "--command", bin}} {
		if out, err := cairn(bin, ws, env, nil, args...); err != nil {
			return fmt.Errorf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	s, err := newSession(home, ws, *turns, *from)
	if err != nil {
		return err
	}
	base := map[string]any{"session_id": s.id, "session_file": s.path, "cwd": ws}
	with := func(more map[string]any) []byte {
		m := map[string]any{}
		for k, v := range base {
			m[k] = v
		}
		for k, v := range more {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		return b
	}
	for _, e := range []struct {
		event string
		input func() []byte
		note  string
	}{
		{"start", func() []byte { return with(map[string]any{"reason": "startup", "resumed": true}) }, "a resume's context"},
		{"prompt", func() []byte {
			return with(map[string]any{"prompt": "go on", "tokens": 150_000, "window": 200_000, "model": "fake-model"})
		}, "pressure at 150,000 of 183,616"},
		{"compact", func() []byte {
			s.add(1)
			return with(map[string]any{"window": 200_000, "reserve_tokens": 16384, "first_kept_entry_id": s.last,
				"leaf": map[string]any{"id": s.last, "type": "message", "role": "assistant", "stop_reason": "stop"}})
		}, "a live import of one appended round, then the compaction"},
		{"prepare", func() []byte {
			s.add(1)
			return with(map[string]any{"window": 200_000, "upto": s.prev})
		}, "off the critical path: a live import of one appended round, then the compaction up to the entry before the last"},
		{"end", func() []byte { return with(map[string]any{"reason": "quit"}) }, "the end line"},
	} {
		if *only != "" && e.event != *only {
			continue
		}
		if *profile != "" {
			return profileHook(*profile, e.event, e.input, *runs, ws, env)
		}
		bins := []string{bin}
		if *old != "" && e.event != "prepare" {
			bins = append(bins, *old)
		}
		lat, cpu := make([]bench.Latencies, len(bins)), make([]bench.Latencies, len(bins))
		var hw bench.Latencies
		for i := 0; i <= *runs; i++ {
			for k := range bins {
				b := (k + i) % len(bins) // each first in turn
				in := e.input()
				t := time.Now()
				out, used, err := cairnCPU(bins[b], ws, env, in, "hook", "--agent", "pi", e.event)
				el := time.Since(t)
				if err != nil {
					return fmt.Errorf("%s hook %s: %v\n%s", bins[b], e.event, err, out)
				}
				if e.event == "compact" && !bytes.Contains(out, []byte(`"summary"`)) {
					return fmt.Errorf("hook compact printed no summary: %s", out)
				}
				if i > 0 { // the first call warms the page cache
					lat[b], cpu[b] = append(lat[b], el), append(cpu[b], used)
				}
			}
			h, _, err := bench.Command{Name: "hello", Args: []string{hello}}.Run()
			if err != nil {
				return err
			}
			if i > 0 {
				hw = append(hw, h)
			}
		}
		for b := range bins {
			name := e.event
			if b > 0 {
				name = "  old"
			}
			fmt.Printf("%-8s p50 %s, p90 %s, max %s; CPU p50 %s; hello world p50 %s (%d runs; %s)\n", name,
				ms(lat[b].Percentile(50)), ms(lat[b].Percentile(90)), ms(lat[b].Percentile(100)), ms(cpu[b].Percentile(50)), ms(hw.Percentile(50)), len(lat[b]), e.note)
		}
	}
	return nil
}

// ensureStore imports a corpus of size bytes of real transcripts into the
// store env names, once: the store is kept for the next run.
func ensureStore(bin, dir, src string, size int64, env []string) error {
	done := filepath.Join(dir, fmt.Sprintf("store-%d.done", size))
	if _, err := os.Stat(done); err == nil {
		return nil
	}
	corpus := filepath.Join(dir, "corpus")
	os.RemoveAll(corpus)
	if _, err := bench.RealCorpus(src, corpus, size); err != nil {
		return err
	}
	start := time.Now()
	if out, err := cairn(bin, dir, env, nil, "import", "-q", corpus); err != nil {
		return fmt.Errorf("import: %v\n%s", err, out)
	}
	fmt.Printf("imported %s of transcripts in %s\n", bytesOf(size), time.Since(start).Round(time.Second))
	os.RemoveAll(corpus)
	return os.WriteFile(done, nil, 0o644)
}

// A session is a pi session file being written: its id, path, last entry
// and the one before it.
type session struct {
	id, path, last, prev string
	n, entries           int
}

func newSession(home, cwd string, turns int, from string) (*session, error) {
	dir := pi.ProjectDir(filepath.Join(pi.Home(func(string) string { return "" }, home), "sessions"), cwd)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	if from != "" {
		return copySession(dir, from)
	}
	s := &session{id: freshID()}
	s.path = filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+s.id+".jsonl")
	head := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-11-28T09:33:43.559Z","cwd":%q}`+"\n", s.id, cwd)
	if err := os.WriteFile(s.path, []byte(head), 0o644); err != nil {
		return nil, err
	}
	return s, s.add(turns)
}

// copySession copies the pi session file from into dir under an id of
// its own: the session appended to is a copy of it.
func copySession(dir, from string) (*session, error) {
	data, err := os.ReadFile(from)
	if err != nil {
		return nil, err
	}
	s := &session{id: freshID()}
	s.path = filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+s.id+".jsonl")
	lines := strings.SplitAfter(string(data), "\n")
	for i, l := range lines {
		var e map[string]any
		if json.Unmarshal([]byte(l), &e) != nil {
			continue
		}
		if e["type"] == "session" {
			e["id"] = s.id
			head, err := json.Marshal(e)
			if err != nil {
				return nil, err
			}
			lines[i] = string(head) + "\n"
		} else if id, _ := e["id"].(string); id != "" {
			s.prev, s.last = s.last, id
			s.entries++
		}
	}
	s.entries += 1 << 20 // ids of their own, past any of the copy's
	return s, os.WriteFile(s.path, []byte(strings.Join(lines, "")), 0o644)
}

// freshID is a session id of this run's own: the store never holds an
// earlier run's session of that id, longer than this one's file.
func freshID() string {
	n := time.Now().UnixNano()
	return fmt.Sprintf("%08x-%04x-7%03x-8%03x-%012x", uint32(n>>32), uint16(n>>16), uint16(n)&0xfff, os.Getpid()&0xfff, n&0xffffffffffff)
}

// An entry is a message entry with its keys in the order pi writes them.
type entry struct {
	Type      string         `json:"type"`
	ID        string         `json:"id"`
	ParentID  *string        `json:"parentId"`
	Timestamp string         `json:"timestamp"`
	Message   map[string]any `json:"message"`
}

// add appends n prompts, each answered with a call and its result and a
// last reply.
func (s *session) add(n int) error {
	f, err := os.OpenFile(s.path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	for range n {
		s.n++
		for _, m := range []map[string]any{
			{"role": "user", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("step %d: look at part %d of the work and say what it holds", s.n, s.n)}}},
			{"role": "assistant", "content": []any{map[string]any{"type": "toolCall", "id": fmt.Sprintf("toolu_%d", s.n), "name": "bash", "arguments": map[string]any{"command": fmt.Sprintf("cat part%d.txt", s.n)}}},
				"stopReason": "toolUse", "usage": map[string]int{"input": 1000 * s.n, "output": 20, "totalTokens": 1000*s.n + 20}},
			{"role": "toolResult", "toolCallId": fmt.Sprintf("toolu_%d", s.n), "toolName": "bash", "content": []any{map[string]any{"type": "text", "text": strings.Repeat(fmt.Sprintf("line of part %d\n", s.n), 60)}}, "isError": false},
			{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Part %d holds 60 lines of itself.", s.n)}}, "stopReason": "stop",
				"usage": map[string]int{"input": 1000 * s.n, "output": 20, "totalTokens": 1000*s.n + 20}},
		} {
			s.entries++
			id := fmt.Sprintf("%08x", 0x10000000+s.entries)
			var parent *string
			if s.last != "" {
				parent = &s.last
			}
			line, _ := json.Marshal(entry{"message", id, parent, "2026-11-28T09:33:44.000Z", m})
			if _, err := f.Write(append(line, '\n')); err != nil {
				return err
			}
			s.prev, s.last = s.last, id
		}
	}
	return nil
}

// profileHook runs the hook for event runs times in this process, each
// with its own input, under a CPU profile written to path, and writes
// what they allocated beside it (.heap).
func profileHook(path, event string, input func() []byte, runs int, ws string, env []string) error {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			os.Setenv(k, v)
		}
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	defer pprof.StopCPUProfile()
	start := time.Now()
	for range runs {
		var out, errs bytes.Buffer
		m := cli.NewMain(bytes.NewReader(input()), &out, &errs)
		m.Getwd = func() (string, error) { return ws, nil }
		if err := m.Run(context.Background(), []string{"hook", "--agent", "pi", event}); err != nil {
			return fmt.Errorf("hook %s: %v\n%s", event, err, errs.String())
		}
	}
	fmt.Printf("%s: %d runs in this process, %s each\n", event, runs, ms(time.Since(start)/time.Duration(runs)))
	heap, err := os.Create(strings.TrimSuffix(path, filepath.Ext(path)) + ".heap")
	if err != nil {
		return err
	}
	defer heap.Close()
	return pprof.Lookup("allocs").WriteTo(heap, 0)
}

func cairn(bin, dir string, env []string, stdin []byte, args ...string) ([]byte, error) {
	out, _, err := cairnCPU(bin, dir, env, stdin, args...)
	return out, err
}

// cairnCPU runs cairn and returns its output and the CPU time it used.
func cairnCPU(bin, dir string, env []string, stdin []byte, args ...string) ([]byte, time.Duration, error) {
	cmd := exec.Command(bin, args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(stdin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err == nil && stderr.Len() > 0 {
		err = fmt.Errorf("stderr: %s", stderr.String())
	}
	return out, rusage.CPU(cmd.ProcessState), err
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func bytesOf(n int64) string { return fmt.Sprintf("%.1f GB", float64(n)/1e9) }
