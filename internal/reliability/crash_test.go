package reliability_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"

	"github.com/google/go-cmp/cmp"
)

// crashBatch is the child's batch size: small, so that an import makes
// many commits to be killed between (and during).
const crashBatch = 4 << 10

// crashChild imports one file with small batches, printing a line after
// each commit, until the parent kills it.
func crashChild() int {
	st, err := openStore(os.Getenv("CAIRN_REL_STORE"))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	im := importer(st, crashBatch)
	im.Progress = func(_ string, done, _ int64) { fmt.Println("committed", done) }
	rep, err := im.Import(context.Background(), []string{os.Getenv("CAIRN_REL_FILE")})
	if err != nil || rep.Failed > 0 {
		fmt.Fprintln(os.Stderr, err, rep.Files[0].Error)
		return 1
	}
	return 0
}

// TestCrash kills an importing child at random points of a transcript that
// grows between kills; after each kill the store must hold a prefix of the
// file, line for line, and a re-import must complete it. At the end the
// index must equal a clean import's.
func TestCrash(t *testing.T) {
	forEachBackend(t, func(t *testing.T, fresh func(testing.TB) string) {
		cfg, ctx, start := configuration(), context.Background(), time.Now()
		seed := uint64(time.Now().UnixNano())
		rng := rand.New(rand.NewPCG(seed, 7))
		t.Logf("seed %d", seed)
		loc := fresh(t)
		file := filepath.Join(t.TempDir(), "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f77.jsonl")
		id := "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f77"
		script := sampleLines(t)
		var data []byte
		var next, ops, kills, failures, verified int
		// Until cfg.kills children were killed midway; one that finished
		// before its kill does not count.
		for i := 0; kills < cfg.kills && i < 3*cfg.kills; i++ {
			grown := 0
			for grown < 24<<10+rng.IntN(48<<10) {
				l := script[next%len(script)]
				data, grown, next = append(data, l...), grown+len(l), next+1
			}
			if err := os.WriteFile(file, data, 0o644); err != nil {
				t.Fatal(err)
			}
			killed, err := importAndKill(loc, file, rng.IntN(grown/crashBatch), rng)
			if err != nil {
				t.Fatal(err)
			}
			st, err := openStore(loc)
			if err != nil {
				t.Fatalf("kill %d: the store does not open: %v", i, err)
			}
			src, err := st.FindSource(ctx, id)
			switch {
			case cairn.ErrorCode(err) == cairn.ENOTFOUND && i == 0:
				if killed {
					kills++
				}
			case err != nil:
				t.Fatalf("kill %d: %v", i, err)
			default:
				if _, err := checkStored(ctx, st, id, data[:src.Offset]); err != nil {
					t.Fatalf("kill %d, after the kill: %v", i, err)
				}
				if killed && src.Offset < int64(len(complete(data))) {
					kills++ // killed midway, not after it finished
				}
			}
			f, _ := importer(st, 0).ImportFile(ctx, file)
			ops += 2
			if f.Status == inscribe.StatusFailed {
				failures++
				t.Errorf("kill %d: re-import: %s", i, f.Error)
			}
			n, err := checkStored(ctx, st, id, complete(data))
			if err != nil {
				t.Fatalf("kill %d, after the re-import: %v", i, err)
			}
			verified += n
			st.Close()
		}

		// The index of the killed and re-imported store is a clean import's.
		st, clean := mustOpenStore(t, loc), mustOpenStore(t, fresh(t))
		if f, _ := importer(clean, 0).ImportFile(ctx, file); f.Status == inscribe.StatusFailed {
			t.Fatal(f.Error)
		}
		got, err1 := st.FindRounds(ctx, cairn.RoundFilter{SessionID: id})
		want, err2 := clean.FindRounds(ctx, cairn.RoundFilter{SessionID: id})
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Fatalf("index after kills differs from a clean import (-clean +killed):\n%s", diff)
		}
		gs, _ := st.FindSessionByID(ctx, id)
		ws, _ := clean.FindSessionByID(ctx, id)
		if gs.Usage != ws.Usage || gs.Rounds != ws.Rounds || gs.Lines != ws.Lines {
			t.Fatalf("session after kills %+v, clean %+v", gs, ws)
		}
		summary(t, start, ops, failures, kills, verified)
	})
}

// importAndKill starts a child importing file into the store at loc and
// kills it after the given number of commits and a random pause; it
// reports whether the child was killed before it finished.
func importAndKill(loc, file string, commits int, rng *rand.Rand) (bool, error) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "CAIRN_RELIABILITY_CHILD=crash", "CAIRN_REL_STORE="+loc, "CAIRN_REL_FILE="+file)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return false, err
	}
	if err := cmd.Start(); err != nil {
		return false, err
	}
	sc := bufio.NewScanner(out)
	for n := 0; n < commits && sc.Scan(); n++ {
	}
	time.Sleep(time.Duration(rng.IntN(500)) * time.Microsecond)
	cmd.Process.Kill()
	for sc.Scan() {
	}
	err = cmd.Wait()
	return err != nil, nil
}
