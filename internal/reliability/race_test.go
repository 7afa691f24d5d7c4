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

// raceSession is the session every racing importer reads.
const raceSession = "5f0c2a1e-8d4b-4c7a-9e31-0000000000ac"

// TestRaceProperty drives random sequences of appends, half lines,
// in-place rewrites, same-size edits of one byte anywhere in the file,
// truncations and replacements by rename against 1–4
// importers reading the same file at the same time, each with its own
// connection to the store (as separate processes have). Every import
// must succeed, and after the dust settles the store must hold the file
// byte for byte as the session's current generation: nothing stuck,
// mixed or hidden.
func TestRaceProperty(t *testing.T) {
	steps := 40
	if *full {
		steps = 300
	}
	forEachBackend(t, func(t *testing.T, fresh func(testing.TB) string) {
		ctx, start := context.Background(), time.Now()
		loc, dir := fresh(t), t.TempDir()
		seed := uint64(time.Now().UnixNano())
		t.Logf("seed %d", seed)
		rng := rand.New(rand.NewPCG(seed, 13))
		var handles []*store
		for range 4 {
			handles = append(handles, mustOpenStore(t, loc))
		}
		script := sampleLines(t)
		file := filepath.Join(dir, raceSession+".jsonl")
		var content []byte
		version := 0
		// line returns the sample line i of the file's current version:
		// each version differs from its first byte on. Its padding makes
		// files of more than the hashed head and tail windows (64 KiB
		// each), so a same-size edit can fall between them.
		pad := strings.Repeat("x", 16000)
		line := func(i int) []byte {
			l := script[i%len(script)]
			return append([]byte(fmt.Sprintf(`{"v":%d,"n":%d,"pad":"%s",`, version, i, pad)), l[1:]...)
		}
		lines := func(data []byte) int { return strings.Count(string(data), "\n") }
		write := func(data []byte) {
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			content = data
		}
		write(append(line(0), line(1)...))
		ops, failures, verified := 0, 0, 0
		for step := range steps {
			// The change, made while the importers run.
			var change string
			var next []byte
			n := lines(content)
			switch rng.IntN(8) {
			case 0, 1:
				change, next = "append", append(complete(content)[:len(complete(content)):len(complete(content))], line(n)...)
				next = append(next, line(n+1)...)
			case 2:
				l := line(n)
				change, next = "half line", append(complete(content)[:len(complete(content)):len(complete(content))], l[:len(l)/2]...)
			case 3:
				version++
				change, next = "rewrite in place", append(line(0), line(1)...)
			case 4:
				cut := bytesAfterLines(content, rng.IntN(max(n, 1)))
				change, next = "truncate", content[:cut:cut]
			case 5:
				version++
				change = "replace by rename"
				for i := range 1 + rng.IntN(n+1) {
					next = append(next, line(i)...)
				}
			case 6:
				change, next = "none", content
			case 7:
				// One byte of one line's padding, anywhere in the file:
				// as long as it was, still valid JSON.
				change, next = "same-size edit", append([]byte(nil), content...)
				if n > 0 {
					at := bytesAfterLines(content, rng.IntN(n)) + len(`{"v":`)
					at += strings.Index(string(next[at:]), `"pad":"`) + len(`"pad":"`) + rng.IntN(len(pad))
					next[at] = 'a' + (next[at]-'a'+1+byte(rng.IntN(25)))%26
				}
			}
			importers := 1 + rng.IntN(4)
			var wg sync.WaitGroup
			reports := make([]*inscribe.FileReport, importers)
			for i := range importers {
				chunk := 1 << (8 + rng.IntN(8)) // drawn here: rng is not safe for concurrent use
				wg.Add(1)
				go func() {
					defer wg.Done()
					im := importer(handles[i], chunk)
					im.Tag = raceFrame
					reports[i], _ = im.ImportFile(ctx, file)
				}()
			}
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
			if change == "replace by rename" {
				tmp := file + ".tmp"
				if err := os.WriteFile(tmp, next, 0o644); err != nil {
					t.Fatal(err)
				}
				if err := os.Rename(tmp, file); err != nil {
					t.Fatal(err)
				}
				content = next
			} else {
				write(next)
			}
			wg.Wait()
			for i, r := range reports {
				ops++
				if r.Status == inscribe.StatusFailed {
					failures++
					t.Errorf("step %d (%s), importer %d of %d: %s", step, change, i+1, importers, r.Error)
				}
			}
			// Settled: one more import reads what the racing ones missed.
			ops++
			st := handles[rng.IntN(len(handles))]
			settle := importer(st, 0)
			settle.Tag = raceFrame
			if r, _ := settle.ImportFile(ctx, file); r.Status == inscribe.StatusFailed {
				t.Fatalf("step %d (%s), settling import: %s", step, change, r.Error)
			}
			got, err := checkStored(ctx, st, raceSession, complete(content))
			if err != nil {
				t.Fatalf("step %d (%s, %d importers): %v", step, change, importers, err)
			}
			// The racing imports tagged every round with a frame: the
			// frame's count (kept apart from the tags on SQLite) is the
			// number of its rounds, after rewrites dropped some.
			frame := cairn.RoundFilter{FrameID: "race"}
			counted, err := st.CountRounds(ctx, frame)
			if err != nil {
				t.Fatal(err)
			}
			if found, err := st.FindRounds(ctx, frame); err != nil || len(found) != counted {
				t.Fatalf("step %d (%s, %d importers): frame counted %d rounds, %d found (%v)", step, change, importers, counted, len(found), err)
			}
			verified += got
			if _, n, err := st.FindSessions(ctx, cairn.SessionFilter{Subagents: true}); err != nil || (n != 1 && len(complete(content)) > 0) {
				t.Fatalf("step %d: %d sessions (%v), want 1", step, n, err)
			}
		}
		summary(t, start, ops, failures, 0, verified)
	})
}

// raceFrame tags the rounds a racing import inscribes with a frame, as an
// import in a workspace with a frame in progress does.
func raceFrame(*cairn.Session) (engagementID, frameID string) { return "", "race" }

// bytesAfterLines returns the length of data's first n lines.
func bytesAfterLines(data []byte, n int) int {
	off := 0
	for range n {
		i := strings.IndexByte(string(data[off:]), '\n')
		if i < 0 {
			break
		}
		off += i + 1
	}
	return off
}

// sharer is a child process that, until its deadline, imports one file
// that the parent grows (as the Stop, PreCompact and SessionEnd hooks and
// a manual import do, all at once), and between imports
// reindexes, searches or lists. It prints a workerResult.
func sharer() int {
	ctx := context.Background()
	res := &workerResult{}
	defer func() { json.NewEncoder(os.Stdout).Encode(res) }()
	st, err := openStore(os.Getenv("CAIRN_REL_STORE"))
	if err != nil {
		res.fail("open: %s", cairn.ErrorMessage(err))
		return 0
	}
	defer st.Close()
	file := os.Getenv("CAIRN_REL_FILE")
	d, _ := time.ParseDuration(os.Getenv("CAIRN_REL_DURATION"))
	seed, _ := strconv.ParseUint(os.Getenv("CAIRN_REL_SEED"), 10, 64)
	rng := rand.New(rand.NewPCG(seed, 17))
	for deadline := time.Now().Add(d); time.Now().Before(deadline); {
		res.Ops++
		im := importer(st, 1<<(10+rng.IntN(6)))
		if f, _ := im.ImportFile(ctx, file); f.Status == inscribe.StatusFailed {
			res.fail("import: %s", f.Error)
		}
		switch rng.IntN(6) {
		case 0:
			res.Ops++
			if err := inscribe.Reindex(ctx, st, "the store", inscribe.Rebuild(claudecode.Format{}), nil); err != nil {
				res.fail("reindex: %v", err)
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
		}
	}
	return 0
}

// TestRaceSharedFile runs processes that all import the same transcript
// while it grows, reindexing and searching between imports: every
// operation of every process succeeds and the store holds the file.
func TestRaceSharedFile(t *testing.T) {
	forEachBackend(t, func(t *testing.T, fresh func(testing.TB) string) {
		cfg, ctx, start := configuration(), context.Background(), time.Now()
		loc, dir := fresh(t), t.TempDir()
		mustOpenStore(t, loc)
		file := filepath.Join(dir, raceSession+".jsonl")
		script := sampleLines(t)
		if err := os.WriteFile(file, script[0], 0o644); err != nil {
			t.Fatal(err)
		}
		results := make([]workerResult, cfg.workers)
		var wg sync.WaitGroup
		for i := range cfg.workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "CAIRN_RELIABILITY_CHILD=sharer", "CAIRN_REL_STORE="+loc, "CAIRN_REL_FILE="+file,
					"CAIRN_REL_DURATION="+cfg.duration.String(), fmt.Sprintf("CAIRN_REL_SEED=%d", time.Now().UnixNano()+int64(i)))
				cmd.Stderr = os.Stderr
				out, err := cmd.Output()
				if err != nil {
					results[i].fail("process %d: %v", i, err)
					return
				}
				sc := bufio.NewScanner(strings.NewReader(string(out)))
				var last string
				for sc.Scan() {
					last = sc.Text()
				}
				if err := json.Unmarshal([]byte(last), &results[i]); err != nil {
					results[i].fail("process %d: %v: %q", i, err, last)
				}
			}()
		}
		// Grow the file as a client does, sometimes pausing on half a line.
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 19))
		for i, deadline := 1, time.Now().Add(cfg.duration); time.Now().Before(deadline); i++ {
			l := script[i%len(script)]
			cut := rng.IntN(len(l))
			f.Write(l[:cut])
			time.Sleep(time.Duration(rng.IntN(3)) * time.Millisecond)
			f.Write(l[cut:])
		}
		f.Close()
		wg.Wait()
		var ops, failures int
		for i, r := range results {
			ops, failures = ops+r.Ops, failures+r.Failures
			for _, e := range r.Errors {
				t.Errorf("process %d: %s", i, e)
			}
		}
		st := mustOpenStore(t, loc)
		if r, _ := importer(st, 0).ImportFile(ctx, file); r.Status == inscribe.StatusFailed {
			t.Fatal(r.Error)
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		n, err := checkStored(ctx, st, raceSession, data)
		if err != nil {
			t.Error(err)
		}
		summary(t, start, ops, failures, 0, n)
	})
}
