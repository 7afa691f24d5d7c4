package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgtest"
)

func TestMigrate(t *testing.T) {
	t.Run("SQLiteToSQLite", func(t *testing.T) {
		testMigrate(t, filepath.Join(t.TempDir(), "copy.db"))
	})
	t.Run("SQLiteToPostgres", func(t *testing.T) {
		testMigrate(t, pgtest.Schema(t, "migrating into PostgreSQL"))
	})
}

// testMigrate imports the samples and a rewritten transcript (two
// generations) into an SQLite store, migrates it to target and compares
// what both stores hold.
func testMigrate(t *testing.T, target string) {
	dir := t.TempDir()
	src := filepath.Join(dir, "cairn.db")
	if _, _, err := runMain(t, src, "import", samples); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(samples, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rewritten := filepath.Join(dir, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f99.jsonl")
	first := append([]byte("not json at all\n"), data[:len(data)/2]...)
	first = first[:strings.LastIndexByte(string(first), '\n')+1]
	for _, content := range [][]byte{first, append(data[:len(data):len(data)], "not json at all\n"...)} {
		if err := os.WriteFile(rewritten, content, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, _, err := runMain(t, src, "import", rewritten); err != nil {
			t.Fatal(err)
		}
	}

	addTasks(t, src)

	out, stderr, err := runMain(t, src, "migrate", "--to", target)
	if err != nil {
		t.Fatalf("migrate: %v\n%s", err, stderr)
	}
	if !strings.HasPrefix(out, "6 sessions: 6 copied, 0 already there; 7 generations,") || !strings.Contains(out, "lines verified by SHA-256") {
		t.Fatalf("migrate figures: %s", out)
	}
	sessions, _, _ := runMain(t, src, "sessions", "--subagents")
	if got, _, err := runMain(t, target, "sessions", "--subagents"); err != nil || got != sessions {
		t.Fatalf("sessions differ (%v):\n%s\nwant:\n%s", err, got, sessions)
	}
	for _, id := range []string{"5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f99"} {
		for _, args := range [][]string{{"export", id}, {"export", "--format", "markdown", id}, {"rounds", id}} {
			want, _, _ := runMain(t, src, args...)
			if got, _, err := runMain(t, target, args...); err != nil || got != want {
				t.Fatalf("%v differs after migrate (%v)", args, err)
			}
		}
	}
	if got, _, _ := runMain(t, target, "export", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f99"); got != string(data)+"not json at all\n" {
		t.Fatal("the rewritten transcript's current generation is not its file")
	}
	if got, _, err := runMain(t, target, "search", "--json", "test"); err != nil || !strings.Contains(got, "5f0c2a1e") {
		t.Fatalf("search after migrate: %v %s", err, got)
	}

	if !strings.Contains(out, "2 frames copied, 3 rounds tagged with frames, 2 with engagements, 1 mission phases copied, 2 engagement phases") {
		t.Fatalf("migrate figures for tasks: %s", out)
	}
	checkTasks(t, target)

	out, _, err = runMain(t, src, "migrate", "--to", target)
	if err != nil || !strings.HasPrefix(out, "6 sessions: 0 copied, 6 already there") || !strings.Contains(out, "0 frames copied") {
		t.Fatalf("second migrate: %v %s", err, out)
	}
	// The target carries on: a re-import of the grown file reads only new bytes.
	if err := os.WriteFile(rewritten, append(append(data[:len(data):len(data)], "not json at all\n"...), data[:200]...), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, _, err := runMain(t, target, "import", rewritten); err != nil || !strings.Contains(out, "1 appended") {
		t.Fatalf("import into the target after migrate: %v %s", err, out)
	}
}

// addTasks gives the store at path a frame tree with tagged rounds and a
// mission in its second phase.
func addTasks(t *testing.T, path string) {
	ctx := context.Background()
	st, err := openStoreWith(path, sqliteOpen{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	s := &cairn.Stack{Frames: st.frames}
	if _, err := s.Push(ctx, "", &cairn.Frame{ID: "app", Title: "App", SuccessCriteria: "ships"}, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Push(ctx, "app", &cairn.Frame{ID: "auth", Title: "Auth", SuccessCriteria: "login", SessionID: "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"}, "ann"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pop(ctx, "auth", cairn.FrameResults{Status: cairn.FrameCompleted, Results: "JWT", Artifacts: []string{"auth.go"}}); err != nil {
		t.Fatal(err)
	}
	refs := []cairn.RoundRef{{SessionID: "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", Seq: 1}, {SessionID: "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", Seq: 2}}
	if err := st.frames.TagFrameRounds(ctx, "auth", refs); err != nil {
		t.Fatal(err)
	}
	if err := st.frames.TagFrameRounds(ctx, "app", []cairn.RoundRef{{SessionID: "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02", Seq: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := st.engagements.SetEngagementPhases(ctx, "auth-work", []cairn.EngagementPhase{
		{Name: "design", StartedAt: time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC), EndedAt: time.Date(2026, 3, 19, 11, 0, 0, 0, time.UTC)},
		{Name: "build", StartedAt: time.Date(2026, 3, 19, 11, 0, 0, 0, time.UTC)},
	}); err != nil {
		t.Fatal(err)
	}
	if err := st.tags.TagRounds(ctx, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03", []int{1, 2}, "auth-work", ""); err != nil {
		t.Fatal(err)
	}
	if err := st.sessions.SetLineage(ctx, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04", cairn.LineageSurgery,
		[]string{"5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"}, "merge", "merge 5f0c2a1e-…01 5f0c2a1e-…02"); err != nil {
		t.Fatal(err)
	}
	if err := st.missions.SetMission(ctx, &cairn.Mission{Text: "Ship the app"}); err != nil {
		t.Fatal(err)
	}
	if err := st.missions.AddPhase(ctx, &cairn.Phase{Seq: 1, Name: "BUILD", Task: "build it", Reason: cairn.PhaseStart}); err != nil {
		t.Fatal(err)
	}
}

// checkTasks verifies what addTasks made, in the store at path.
func checkTasks(t *testing.T, path string) {
	ctx := context.Background()
	st, err := openStoreWith(path, sqliteOpen{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if phases, err := st.engagements.FindEngagementPhases(ctx, "auth-work"); err != nil || len(phases) != 2 || phases[1].Name != "build" {
		t.Fatalf("engagement phases after migrate: %+v, %v", phases, err)
	}
	auth, err := st.frames.FindFrameByID(ctx, "auth")
	if err != nil || auth.ParentID != "app" || auth.Status != cairn.FrameCompleted || auth.Results != "JWT" || auth.Artifacts[0] != "auth.go" || auth.Owner != "ann" ||
		auth.SessionID != "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01" {
		t.Fatalf("auth frame after migrate: %+v, %v", auth, err)
	}
	for frame, want := range map[string]int{"auth": 2, "app": 1} {
		if rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{FrameID: frame}); err != nil || len(rounds) != want {
			t.Fatalf("frame %s tags %d rounds (%v), want %d", frame, len(rounds), err, want)
		}
	}
	if rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{EngagementID: "auth-work"}); err != nil || len(rounds) != 2 {
		t.Fatalf("engagement tags after migrate: %d rounds, %v", len(rounds), err)
	}
	if s, err := st.sessions.FindSessionByID(ctx, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04"); err != nil || s.Operation != "merge" || s.Recipe != "merge 5f0c2a1e-…01 5f0c2a1e-…02" || len(s.Parents) != 2 || s.Lineage != cairn.LineageSurgery {
		t.Fatalf("lineage after migrate: %+v, %v", s, err)
	}
	if m, err := st.missions.FindMission(ctx); err != nil || m.Text != "Ship the app" || m.Phase == nil || m.Phase.Name != "BUILD" {
		t.Fatalf("mission after migrate: %+v, %v", m, err)
	}
}

// TestMigrateInPlace rewrites a store an older cairn wrote
// (testdata/store-0011.db: the samples 02 and 04 imported by the cairn
// of migration 0011, S2 chunks and block texts inline) into this cairn's
// layout: every command reads the same before and after, the figures say
// what was rewritten and checked, and a second run has nothing to do.
func TestMigrateInPlace(t *testing.T) {
	store := filepath.Join(t.TempDir(), "cairn.db")
	copyFixture(t, "store-0011.db", store)
	reads := [][]string{
		{"sessions", "--subagents"},
		{"show", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"},
		{"show", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04"},
		{"export", "--format", "jsonl", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04"},
		{"search", "the"},
	}
	read := func() []string {
		var outs []string
		for _, args := range reads {
			out, stderr, err := runMain(t, store, args...)
			if err != nil {
				t.Fatalf("%v: %v\n%s", args, err, stderr)
			}
			outs = append(outs, out)
		}
		return outs
	}
	before := read()
	out, stderr, err := runMain(t, store, "migrate", "--in-place", "--json")
	if err != nil {
		t.Fatalf("migrate --in-place: %v\n%s", err, stderr)
	}
	var rep cairn.RelayoutReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	t.Logf("migrate --in-place: %+v", rep)
	if rep.Sessions < 2 || rep.Relaid != rep.Sessions || rep.Chunks < 2 || rep.Lines < 74 || rep.Views < 20 || rep.After >= rep.Before {
		t.Errorf("migrate --in-place figures %+v: want every session rewritten, its chunks and 74 lines at least checked, 20 views at least, a smaller store", rep)
	}
	for i, got := range read() {
		if got != before[i] {
			t.Errorf("%v reads differently after migrate --in-place:\n%s\nbefore:\n%s", reads[i], got, before[i])
		}
	}
	out, _, err = runMain(t, store, "migrate", "--in-place")
	if err != nil || !strings.Contains(out, " 0 rewritten, ") || !strings.Contains(out, "0 chunks of lines rewritten") {
		t.Errorf("a second migrate --in-place: %v: %s", err, out)
	}
	for _, args := range [][]string{{"migrate", "--in-place", "--to", "x.db"}, {"migrate", "--no-vacuum", "--to", "x.db"}} {
		if _, _, err := runMain(t, store, args...); err == nil {
			t.Errorf("%v: no usage error", args)
		}
	}
}
