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
// cairn's compaction) and end (session_shutdown), each call paired with a
// Go hello world run right after it.
package main

import (
	"bytes"
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
	runs := flag.Int("runs", 21, "hook calls to time per event")
	flag.Parse()
	size, err := bench.ParseSize(*sizeFlag)
	if err != nil {
		return err
	}
	bin := filepath.Join(*dir, "cairn")
	if err := bench.BuildCairn(bin); err != nil {
		return err
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
	s, err := newSession(home, ws, *turns)
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
		{"end", func() []byte { return with(map[string]any{"reason": "quit"}) }, "the end line"},
	} {
		var lat, cpu, hw bench.Latencies
		for i := 0; i <= *runs; i++ {
			in := e.input()
			t := time.Now()
			out, used, err := cairnCPU(bin, ws, env, in, "hook", "--agent", "pi", e.event)
			el := time.Since(t)
			if err != nil {
				return fmt.Errorf("hook %s: %v\n%s", e.event, err, out)
			}
			if e.event == "compact" && !bytes.Contains(out, []byte(`"summary"`)) {
				return fmt.Errorf("hook compact printed no summary: %s", out)
			}
			h, _, err := bench.Command{Name: "hello", Args: []string{hello}}.Run()
			if err != nil {
				return err
			}
			if i > 0 { // the first call warms the page cache
				lat, cpu, hw = append(lat, el), append(cpu, used), append(hw, h)
			}
		}
		fmt.Printf("%-8s p50 %s, p90 %s, max %s; CPU p50 %s; hello world p50 %s (%d runs; %s)\n", e.event,
			ms(lat.Percentile(50)), ms(lat.Percentile(90)), ms(lat.Percentile(100)), ms(cpu.Percentile(50)), ms(hw.Percentile(50)), len(lat), e.note)
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

// A session is a pi session file being written: its id, path and last
// entry.
type session struct {
	id, path, last string
	n, entries     int
}

func newSession(home, cwd string, turns int) (*session, error) {
	dir := pi.ProjectDir(filepath.Join(pi.Home(func(string) string { return "" }, home), "sessions"), cwd)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	s := &session{id: "01a22180-defd-73bc-8443-0000000be7c4"}
	s.path = filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+s.id+".jsonl")
	head := fmt.Sprintf(`{"type":"session","version":3,"id":%q,"timestamp":"2026-11-28T09:33:43.559Z","cwd":%q}`+"\n", s.id, cwd)
	if err := os.WriteFile(s.path, []byte(head), 0o644); err != nil {
		return nil, err
	}
	return s, s.add(turns)
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
			var parent any
			if s.last != "" {
				parent = s.last
			}
			line, _ := json.Marshal(map[string]any{"type": "message", "id": id, "parentId": parent, "timestamp": "2026-11-28T09:33:44.000Z", "message": m})
			if _, err := f.Write(append(line, '\n')); err != nil {
				return err
			}
			s.last = id
		}
	}
	return nil
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
