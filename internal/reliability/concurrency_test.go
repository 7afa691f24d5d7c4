package reliability_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
)

// A workerResult is what one concurrent process did, printed as its last
// line of output.
type workerResult struct {
	Ops      int      `json:"ops"`
	Failures int      `json:"failures"`
	Errors   []string `json:"errors,omitempty"` // the first few
	Bytes    int64    `json:"bytes"`
	Frames   int      `json:"frames"` // frames pushed, tagged and popped
}

func (r *workerResult) fail(format string, args ...any) {
	r.Failures++
	if len(r.Errors) < 5 {
		r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
	}
}

// worker grows its own transcript and imports it, over and over, into a
// store other processes write at the same time; it re-imports unchanged
// files, searches and lists, and checks after every import that the store
// holds what the file holds. It prints a workerResult.
func worker() int {
	ctx := context.Background()
	res := &workerResult{}
	defer func() { json.NewEncoder(os.Stdout).Encode(res) }()
	st, err := openStore(os.Getenv("CAIRN_REL_STORE"))
	if err != nil {
		res.fail("open: %v", err)
		return 0
	}
	defer st.Close()
	file, id := os.Getenv("CAIRN_REL_FILE"), strings.TrimSuffix(filepath.Base(os.Getenv("CAIRN_REL_FILE")), ".jsonl")
	d, _ := time.ParseDuration(os.Getenv("CAIRN_REL_DURATION"))
	seed, _ := strconv.ParseUint(os.Getenv("CAIRN_REL_SEED"), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 11))
	data, err := os.ReadFile("../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03.jsonl")
	if err != nil {
		res.fail("%v", err)
		return 0
	}
	script := claudecode.SplitLines(data)
	var content []byte
	im := importer(st, 16<<10)
	for next, deadline := 0, time.Now().Add(d); time.Now().Before(deadline); {
		// Grow the file by a few lines, sometimes ending in half a line
		// that the next round completes.
		for n := 1 + rng.IntN(12); n > 0; n-- {
			content = append(content, script[next%len(script)]...)
			next++
		}
		written := content
		if l := script[next%len(script)]; rng.IntN(4) == 0 && len(l) > 8 {
			written = append(content[:len(content):len(content)], l[:len(l)/2]...)
		}
		if err := os.WriteFile(file, written, 0o644); err != nil {
			res.fail("%v", err)
			break
		}
		res.Ops++
		if f, _ := im.ImportFile(ctx, file); f.Status == inscribe.StatusFailed {
			res.fail("import: %s", f.Error)
			continue
		}
		if _, err := checkStored(ctx, st, id, complete(written)); err != nil {
			res.fail("after import: %v", err)
		}
		res.Bytes = int64(len(content))
		switch rng.IntN(5) {
		case 0:
			res.Ops++
			if f, _ := im.ImportFile(ctx, file); f.Status != inscribe.StatusUnchanged && f.Status != inscribe.StatusAppended {
				res.fail("re-import: %s %s", f.Status, f.Error)
			}
		case 1:
			res.Ops++
			if _, err := st.Search(ctx, cairn.SearchQuery{Text: "test*", Limit: 5}); err != nil {
				res.fail("search: %v", err)
			}
		case 2:
			res.Ops++
			if _, _, err := st.FindSessions(ctx, cairn.SessionFilter{Limit: 10}); err != nil {
				res.fail("sessions: %v", err)
			}
		case 3:
			res.Ops++
			if _, err := st.FindRounds(ctx, cairn.RoundFilter{SessionID: id, WithBlocks: true}); err != nil {
				res.fail("rounds: %v", err)
			}
		case 4:
			res.Ops += 3
			if err := frameCycle(ctx, st, fmt.Sprintf("%s-f%d", id[len(id)-4:], res.Frames), id); err != nil {
				res.fail("frame: %v", err)
			} else {
				res.Frames++
			}
		}
	}
	// Complete a pending half line, so the parent can check the whole file.
	if err := os.WriteFile(file, content, 0o644); err != nil {
		res.fail("%v", err)
	}
	return 0
}

// frameCycle pushes a frame, tags the session's last round with it and
// pops it: the frame operations agents run beside their imports.
func frameCycle(ctx context.Context, st *store, frameID, sessionID string) error {
	s := &cairn.Stack{Frames: st}
	if _, err := s.Push(ctx, "", &cairn.Frame{ID: frameID, Title: "Import", SuccessCriteria: "imported"}, sessionID); err != nil {
		return err
	}
	last, err := st.LastRound(ctx, sessionID)
	if err != nil {
		return err
	}
	if err := st.TagFrameRounds(ctx, frameID, []cairn.RoundRef{{SessionID: sessionID, Seq: last.Seq}}); err != nil {
		return err
	}
	_, err = s.Pop(ctx, frameID, cairn.FrameResults{Status: cairn.FrameCompleted, Results: "done"})
	return err
}

// TestConcurrency runs worker processes on one store at once and then
// checks every transcript against the store.
func TestConcurrency(t *testing.T) {
	forEachBackend(t, func(t *testing.T, fresh func(testing.TB) string) {
		cfg, ctx, start := configuration(), context.Background(), time.Now()
		loc, dir := fresh(t), t.TempDir()
		mustOpenStore(t, loc) // migrate once, so the workers' time goes to imports
		results := make([]workerResult, cfg.workers)
		var wg sync.WaitGroup
		for i := range cfg.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				file := filepath.Join(dir, fmt.Sprintf("5f0c2a1e-8d4b-4c7a-9e31-%012d.jsonl", i))
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "CAIRN_RELIABILITY_CHILD=worker", "CAIRN_REL_STORE="+loc, "CAIRN_REL_FILE="+file,
					"CAIRN_REL_DURATION="+cfg.duration.String(), fmt.Sprintf("CAIRN_REL_SEED=%d", time.Now().UnixNano()+int64(i)))
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					results[i].fail("worker %d: %v", i, err)
					return
				}
				sc := bufio.NewScanner(strings.NewReader(string(out)))
				var last string
				for sc.Scan() {
					last = sc.Text()
				}
				if err := json.Unmarshal([]byte(last), &results[i]); err != nil {
					results[i].fail("worker %d: %v: %q", i, err, last)
				}
			}()
		}
		wg.Wait()

		var ops, failures, verified, frames int
		for i, r := range results {
			ops, failures, frames = ops+r.Ops, failures+r.Failures, frames+r.Frames
			for _, e := range r.Errors {
				t.Errorf("worker %d: %s", i, e)
			}
		}
		st := mustOpenStore(t, loc)
		for i := range cfg.workers {
			file := filepath.Join(dir, fmt.Sprintf("5f0c2a1e-8d4b-4c7a-9e31-%012d.jsonl", i))
			if f, _ := importer(st, 0).ImportFile(ctx, file); f.Status == inscribe.StatusFailed {
				t.Fatal(f.Error)
			}
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			n, err := checkStored(ctx, st, strings.TrimSuffix(filepath.Base(file), ".jsonl"), data)
			if err != nil {
				t.Errorf("worker %d's transcript: %v", i, err)
			}
			verified += n
		}
		if _, n, err := st.FindSessions(ctx, cairn.SessionFilter{}); err != nil || n != cfg.workers {
			t.Errorf("%d sessions in the store (%v), want %d", n, err, cfg.workers)
		}
		stored, err := st.FindFrames(ctx)
		if err != nil || len(stored) != frames {
			t.Errorf("%d frames stored (%v), the workers pushed %d", len(stored), err, frames)
		}
		for _, f := range stored {
			if f.Status != cairn.FrameCompleted {
				t.Errorf("frame %s is %s, want completed", f.ID, f.Status)
			}
		}
		summary(t, start, ops, failures, 0, verified)
	})
}
