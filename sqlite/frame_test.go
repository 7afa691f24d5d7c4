package sqlite_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"cairn"
	"cairn/sqlite"
)

var now = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

func stack(db *sqlite.DB) *cairn.Stack {
	return &cairn.Stack{Frames: sqlite.NewFrameStore(db), Now: func() time.Time { return now }}
}

// planClaimable plans n ready frames under one in-progress root.
func planClaimable(tb testing.TB, db *sqlite.DB, n int) {
	tb.Helper()
	ctx := context.Background()
	s := stack(db)
	if _, err := s.Push(ctx, "", &cairn.Frame{ID: "root", Title: "Root", SuccessCriteria: "all done"}, ""); err != nil {
		tb.Fatal(err)
	}
	var frames []*cairn.Frame
	for i := range n {
		frames = append(frames, &cairn.Frame{ID: fmt.Sprintf("t%03d", i), Title: "Task", SuccessCriteria: "c"})
	}
	if _, err := s.Plan(ctx, "root", frames); err != nil {
		tb.Fatal(err)
	}
}

// claimAll claims frames for owner until none is ready.
func claimAll(ctx context.Context, s *cairn.Stack, owner string, claimed func(id string)) error {
	for {
		f, err := s.Claim(ctx, owner)
		if cairn.ErrorCode(err) == cairn.ENOTFOUND {
			return nil
		} else if err != nil {
			return err
		}
		claimed(f.ID)
	}
}

// checkClaims fails unless every frame was claimed exactly once.
func checkClaims(t *testing.T, claims []string, n int) {
	t.Helper()
	seen := make(map[string]int)
	for _, id := range claims {
		seen[id]++
	}
	for id, k := range seen {
		if k > 1 {
			t.Errorf("frame %s claimed %d times", id, k)
		}
	}
	if len(seen) != n {
		t.Errorf("%d frames claimed, want %d", len(seen), n)
	}
}

// TestClaimConcurrentProcesses re-executes the test binary as several
// claiming processes on one store file.
func TestClaimConcurrentProcesses(t *testing.T) {
	if path := os.Getenv("CAIRN_CLAIM_STORE"); path != "" {
		db := sqlite.NewDB(path)
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		owner := os.Getenv("CAIRN_CLAIM_OWNER")
		if err := claimAll(context.Background(), &cairn.Stack{Frames: sqlite.NewFrameStore(db)}, owner, func(id string) {
			fmt.Fprintln(w, "claimed", id)
		}); err != nil {
			t.Fatal(err)
		}
		return
	}
	if testing.Short() {
		t.Skip("starts processes")
	}
	const frames, procs = 40, 4
	path := filepath.Join(t.TempDir(), "cairn.db")
	db := MustOpenDBAt(t, path)
	planClaimable(t, db, frames)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimConcurrentProcesses$", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_CLAIM_STORE="+path, fmt.Sprintf("CAIRN_CLAIM_OWNER=proc%d", p))
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	var claims []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		for _, line := range strings.Split(outs[i].String(), "\n") {
			if id, ok := strings.CutPrefix(line, "claimed "); ok {
				claims = append(claims, id)
			}
		}
	}
	checkClaims(t, claims, frames)
	// The store agrees: every frame is in progress, owned by one process.
	tree, err := stack(db).Tree(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	owners := make(map[string]bool)
	for _, f := range tree.Frames() {
		if f.Status != cairn.FrameInProgress {
			t.Errorf("frame %s is %s", f.ID, f.Status)
		}
		owners[f.Owner] = true
	}
	var names []string
	for o := range owners {
		names = append(names, o)
	}
	sort.Strings(names)
	t.Logf("claimed by %v", names)
}
