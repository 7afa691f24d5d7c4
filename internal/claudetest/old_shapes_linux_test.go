package claudetest_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"cairn/claudecode"
	"cairn/inscribe"
	"cairn/internal/claudetest"
	"cairn/internal/fakeapi"
	"cairn/sqlite"
	"cairn/surgery"
)

// oldShape is one session of testdata/shapes/claude-1.0 and, when the
// generator resumed it, the request the client sent then.
type oldShape struct {
	id, path string
	request  []byte
}

func oldShapes(t *testing.T, shape string) []oldShape {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(oldOut, shape, "*.jsonl"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no %s session in %s: %v", shape, oldOut, err)
	}
	var out []oldShape
	for _, p := range paths {
		s := oldShape{id: strings.TrimSuffix(filepath.Base(p), ".jsonl"), path: p}
		s.request, _ = os.ReadFile(strings.TrimSuffix(p, ".jsonl") + ".resume-request.json")
		out = append(out, s)
	}
	return out
}

// importOld imports sessions into a new store for surgery.
func importOld(t *testing.T, shapes ...oldShape) surgery.Store {
	t.Helper()
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	var paths []string
	for _, s := range shapes {
		paths = append(paths, s.path)
	}
	if rep, err := im.Import(context.Background(), paths); err != nil || rep.Failed > 0 {
		t.Fatalf("import: %v %+v", err, rep)
	}
	return surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db), LinesOnly: true}
}

// TestOldCompactionResume: a 1.0.x compaction (an isCompactSummary line,
// no boundary; made by the real client 1.0.51, by /compact and by itself)
// is a compaction to cairn, and cairn's estimate of what the client sends
// when it resumes the session (surgery.Resume) is what the real client sent
// when the generator resumed it (its request, kept beside the session),
// within 25 %, the bound TestEstimateCalibration holds real transcripts to.
// Counting the lines before the summary, as cairn did, made the estimate
// several times the request.
func TestOldCompactionResume(t *testing.T) {
	ctx := context.Background()
	for _, shape := range []string{"compact", "auto"} {
		for _, s := range oldShapes(t, shape) {
			t.Run(shape, func(t *testing.T) {
				st := importOld(t, s)
				cs, err := surgery.Compactions(ctx, st, s.id)
				if err != nil {
					t.Fatal(err)
				}
				if len(cs) != 1 || !strings.HasPrefix(cs[0].Summary, "This session is being continued") {
					t.Fatalf("compactions %+v, want the one the client made, with its summary", cs)
				}
				if s.request == nil {
					t.Fatalf("no resume request beside %s", s.path)
				}
				sent := sentConversation(t, s.request)
				m, err := surgery.Resume(ctx, st, s.id)
				if err != nil {
					t.Fatal(err)
				}
				est := surgery.Estimate(m) - m.Overhead
				e := float64(est-sent) / float64(sent)
				t.Logf("%s %s: the client sent a conversation of ~%d tokens when resuming; cairn estimates %d (%+.1f%%)", shape, s.id[:8], sent, est, 100*e)
				if math.Abs(e) > 0.25 {
					t.Errorf("estimate %d is %+.0f%% off the ~%d tokens the client sent", est, 100*e, sent)
				}
				if bin := oldBinary(); bin != "" {
					live := sentConversation(t, resumeOld(t, bin, s))
					if e := float64(est-live) / float64(live); math.Abs(e) > 0.25 {
						t.Errorf("the client %s resuming it now sent ~%d tokens: the estimate %d is %+.0f%% off", oldVersion, live, est, 100*e)
					} else {
						t.Logf("the client %s resuming it now sent ~%d tokens (estimate %+.1f%%)", oldVersion, live, 100*e)
					}
				} else {
					t.Logf("no claude %s here (CAIRN_CLAUDE_1_0): compared with the request it sent when the session was made", oldVersion)
				}
			})
		}
	}
}

// sentConversation counts a request's messages as cairn estimates them,
// less the system prompt and tools (the client's overhead, which Resume
// counts for today's client) and less the new prompt, the last user
// message: what the client sent of the session it resumed.
func sentConversation(t *testing.T, body []byte) int64 {
	t.Helper()
	total, overhead := requestTokens(t, body)
	var req struct {
		Messages []json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		t.Fatalf("request: %v", err)
	}
	last, _ := json.Marshal(map[string]any{"messages": []json.RawMessage{req.Messages[len(req.Messages)-1]}})
	prompt, _ := requestTokens(t, last)
	return total - overhead - prompt
}

// resumeOld has the old client resume session s from a scratch home, as
// the generator did, and returns the request it sends.
func resumeOld(t *testing.T, bin string, s oldShape) []byte {
	t.Helper()
	home := claudetest.ScratchDir(t)
	seedOldHome(t, home)
	raw, err := os.ReadFile(s.path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(claudecode.ProjectsDir(home), "-tmp-cairn-old-proj")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, s.id+".jsonl"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(oldProject, 0o755); err != nil {
		t.Fatal(err)
	}
	api := fakeapi.New(oldTurns()...)
	defer api.Close()
	prompt := oldResumed + " (live)"
	claudetest.Run(t, bin, home, oldProject, api.URL, "--resume", s.id, "-p", prompt)
	return mainRequest(t, api, prompt).body
}
