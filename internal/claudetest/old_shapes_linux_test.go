package claudetest_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
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

// TestResumedTwoIDs imports the folder the client 2.0.30 leaves when a
// session is resumed with -p (testdata/shapes/claude-2.0/resumed, made by
// TestGenerateOld): the session's own file, both runs in it under one id;
// an empty file under the id the resumed run started with; and "Warmup"
// sub-agent files, those of the resumed run carrying both ids, the new one
// on their prompt and the resumed one on their reply. Each file is one
// session whatever ids its lines carry: the main session has its two
// prompts as rounds; each sub-agent its Warmup round with prompt and reply.
func TestResumedTwoIDs(t *testing.T) {
	dir := filepath.Join(oldOut, "..", "claude-2.0", "resumed")
	paths, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(paths) < 3 {
		t.Fatalf("the 2.0.30 resumed folder %s holds %v", dir, paths)
	}
	var shapes []oldShape
	twoIDs := map[string]bool{}
	for _, p := range paths {
		shapes = append(shapes, oldShape{id: strings.TrimSuffix(filepath.Base(p), ".jsonl"), path: p})
		raw, _ := os.ReadFile(p)
		ids := map[string]bool{}
		for _, l := range claudecode.SplitLines(raw) {
			var e struct {
				SessionID string `json:"sessionId"`
			}
			if json.Unmarshal(l, &e) == nil && e.SessionID != "" {
				ids[e.SessionID] = true
			}
		}
		twoIDs[filepath.Base(p)] = len(ids) > 1
	}
	st := importOld(t, shapes...)
	ctx := context.Background()
	sessions, _, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	mains, agents, agentsOfTwo := 0, 0, 0
	for _, s := range sessions {
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, FromSeq: 1, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		var prompts []string
		for _, r := range rounds {
			prompts = append(prompts, r.UserPreview)
		}
		switch s.Lineage {
		case cairn.LineageSubagent:
			agents++
			if twoIDs[filepath.Base(s.Path)] {
				agentsOfTwo++
			}
			if len(rounds) != 1 || prompts[0] != "Warmup" || len(rounds[0].Blocks) != 2 {
				t.Errorf("sub-agent %s: rounds %q, want one Warmup round of its prompt and reply", s.ID, prompts)
			}
		default:
			mains++
			if strings.Join(prompts, " | ") != oldStock+" | "+oldThanks {
				t.Errorf("session %s: rounds %q, want the first run's prompt and the resumed one's", s.ID, prompts)
			}
		}
	}
	if mains != 1 || agents != len(paths)-2 || agentsOfTwo == 0 {
		t.Errorf("%d main sessions, %d sub-agents (%d of files with two ids), want 1 and %d (the empty file none), some with two ids", mains, agents, agentsOfTwo, len(paths)-2)
	}
}
