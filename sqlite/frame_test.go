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

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/storetest"
)

var now = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

func stack(db *sqlite.DB) *cairn.Stack {
	return &cairn.Stack{Frames: sqlite.NewFrameStore(db), Now: func() time.Time { return now }}
}

// TestClaimConcurrentProcesses re-executes the test binary as several
// claiming processes on one store file, half of them on one connection
// as a hook opens the store.
func TestClaimConcurrentProcesses(t *testing.T) {
	if path := os.Getenv("CAIRN_CLAIM_STORE"); path != "" {
		db := sqlite.NewDB(path)
		db.OneConnection = os.Getenv("CAIRN_CLAIM_ONE") != ""
		if err := db.Open(); err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		w := bufio.NewWriter(os.Stdout)
		defer w.Flush()
		owner := os.Getenv("CAIRN_CLAIM_OWNER")
		if err := storetest.ClaimAll(context.Background(), &cairn.Stack{Frames: sqlite.NewFrameStore(db)}, owner, func(id string) {
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
	storetest.PlanClaimable(t, &storetest.Store{Frames: sqlite.NewFrameStore(db)}, frames)
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for p := range procs {
		cmd := exec.Command(os.Args[0], "-test.run=^TestClaimConcurrentProcesses$", "-test.v")
		cmd.Env = append(os.Environ(), "CAIRN_CLAIM_STORE="+path, fmt.Sprintf("CAIRN_CLAIM_OWNER=proc%d", p))
		if p%2 == 1 {
			cmd.Env = append(cmd.Env, "CAIRN_CLAIM_ONE=1") // as a hook opens it
		}
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
	storetest.CheckClaims(t, claims, frames)
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
