package cli

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/internal/fakeapi"
)

// TestEvalRetention runs eval retention on a long auto-compacted public
// session and checks the variants it reports and their ordering: the
// compaction summary keeps less than the original resumed as is, and
// names no step, so strictly it keeps nothing in context.
func TestEvalRetention(t *testing.T) {
	c := newCLI(t)
	const long = "../../../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
	if _, err := c.try("import", "--store", c.store, long); err != nil {
		t.Skipf("SKIPPING: the public long session is not here: %v", err)
	}
	out := c.run("eval", "retention", "--json", "8463c716")
	var got struct {
		Probes int
		Steps  int
		Scores []struct {
			Variant   string
			Tokens    int
			HopLimit  int64          `json:"hop_limit"`
			Strict    retentionCount `json:"strict"`
			Lenient   retentionCount `json:"lenient"`
			Steps     int            `json:"steps"`
			Reachable int            `json:"reachable"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	by := map[string]int{}
	for i, s := range got.Scores {
		by[s.Variant] = i
		for _, n := range []retentionCount{s.Strict, s.Lenient} {
			if n.InContext+n.OneHop+n.Lost != got.Probes || s.Tokens <= 0 {
				t.Errorf("%s: verdicts %+v do not add up to %d probes, or no tokens (%d)", s.Variant, n, got.Probes, s.Tokens)
			}
		}
		if s.Strict.InContext > s.Lenient.InContext || s.Strict.InContext+s.Strict.OneHop > s.Lenient.InContext+s.Lenient.OneHop {
			t.Errorf("%s: strict %+v keeps more than lenient %+v", s.Variant, s.Strict, s.Lenient)
		}
		if s.Steps != got.Steps || s.Reachable > s.Steps || s.HopLimit <= 0 {
			t.Errorf("%s: %d of %d steps reachable (session: %d), hop limit %d", s.Variant, s.Reachable, s.Steps, got.Steps, s.HopLimit)
		}
	}
	for _, v := range []string{"original resumed", "claude compaction summary", "revive", "revive (partial)"} {
		if _, ok := by[v]; !ok {
			t.Fatalf("no variant %q in %s", v, out)
		}
	}
	orig, summary := got.Scores[by["original resumed"]], got.Scores[by["claude compaction summary"]]
	if summary.Lenient.InContext >= orig.Lenient.InContext || summary.Tokens >= orig.Tokens {
		t.Errorf("the compaction summary should keep less at fewer tokens than the original: %+v vs %+v", summary, orig)
	}
	if summary.Strict.InContext != 0 || orig.Strict.InContext == 0 {
		t.Errorf("strictly, the summary keeps %d in context (want 0), the original %d", summary.Strict.InContext, orig.Strict.InContext)
	}
	table := c.run("eval", "retention", "8463c716")
	for _, want := range []string{"IN CONTEXT", "claude compaction summary", "ARTIFACT", "CONTINUATION", "REACHABLE", "strict/lenient"} {
		if !strings.Contains(table, want) {
			t.Errorf("no %q in the table:\n%s", want, table)
		}
	}
	probes := c.run("eval", "retention", "--probes", "8463c716")
	if !strings.Contains(probes, "artifact") || !strings.Contains(probes, "continuation") {
		t.Errorf("probes:\n%s", probes)
	}
}

// TestEvalRetentionModel runs the model-judged measure against the
// stand-in API: it proves the plumbing (every sampled probe is asked of
// every variant, a reply holding the answer counts) and says so.
func TestEvalRetentionModel(t *testing.T) {
	c := newCLI(t)
	api := fakeapi.New() // answers every question with fakeapi.DefaultReply
	defer api.Close()
	c.env["ANTHROPIC_BASE_URL"] = api.URL
	c.env["ANTHROPIC_API_KEY"] = "sk-test"
	const heavy = "../../../shared/testdata/transcripts/marot__spotter/tool_heavy.jsonl"
	if _, err := c.try("import", "--store", c.store, heavy); err != nil {
		t.Skipf("SKIPPING: the public tool_heavy session is not here: %v", err)
	}
	out := c.run("eval", "retention", "--model", "claude-test", "--model-probes", "0", "d6e0bada")
	if !strings.Contains(out, "prove the plumbing") || !strings.Contains(out, "Model-judged (claude-test") {
		t.Fatalf("output:\n%s", out)
	}
	var js struct {
		Probes int        `json:"probes"`
		Scores []struct{} `json:"scores"`
		Judged []struct {
			Variant string
			All     struct {
				InContext int `json:"in_context"`
			} `json:"all"`
		} `json:"model_judged"`
	}
	out = c.run("eval", "retention", "--json", "--model", "claude-test", "--model-probes", "0", "d6e0bada")
	out, _, _ = strings.Cut(out, "\n") // stdout's one JSON line; stderr follows
	if err := json.Unmarshal([]byte(out), &js); err != nil {
		t.Fatal(err)
	}
	if n := len(api.Requests()); n != 2*js.Probes*len(js.Scores) || n == 0 {
		t.Errorf("%d requests, want every probe asked of every variant, twice: 2 × %d × %d", n, js.Probes, len(js.Scores))
	}
	for _, j := range js.Judged {
		if j.All.InContext != 0 {
			t.Errorf("%s: %d answered by a stand-in that knows nothing", j.Variant, j.All.InContext)
		}
	}
}

// TestEvalRetentionGoal pins issue 15's goal for the defaults on the long
// auto-compacted public sessions, judged strictly (issue 26): revive at
// the default budget keeps at least 90 % of the probes of every category
// in context or one hop, more in context than Claude Code's own compaction
// summary, within its budget, and (issue 41) lighter than what the client
// loads for the original only when that is itself over the budget: a
// compaction shortly before the end leaves a remnant that is no ceiling.
func TestEvalRetentionGoal(t *testing.T) {
	shared := "../../../shared/testdata/transcripts/marot__spotter/long/"
	paths := []string{shared + "258c7280-ae70-4798-800f-63464d01a85d.jsonl", shared + "8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"}
	if _, err := os.Stat(paths[0]); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("the public long sessions must be here in CI: %v", err)
		}
		t.Logf("SKIPPING the public long sessions: %v", err)
		paths = nil
	}
	generated, err := filepath.Glob("../../testdata/long/*.jsonl")
	if err != nil || len(generated) < 6 {
		t.Fatalf("the long sessions of testdata/long (%d): %v", len(generated), err)
	}
	for _, path := range append(paths, generated...) {
		id := strings.TrimSuffix(filepath.Base(path), ".jsonl")
		t.Run(id, func(t *testing.T) {
			t.Parallel()
			c := newCLI(t)
			c.run("import", path)
			var got struct {
				Scores []struct {
					Variant    string
					Tokens     int
					HopLimit   int            `json:"hop_limit"`
					Steps      int            `json:"steps"`
					Reachable  int            `json:"reachable"`
					Continues  bool           `json:"continues"`
					Strict     retentionCount `json:"strict"`
					ByCategory map[string]struct {
						Strict retentionCount `json:"strict"`
					} `json:"by_category"`
				}
			}
			if err := json.Unmarshal([]byte(c.run("eval", "retention", "--json", id)), &got); err != nil {
				t.Fatal(err)
			}
			by := map[string]int{}
			for i, s := range got.Scores {
				by[s.Variant] = i
			}
			i, ok := by["revive"]
			if !ok {
				t.Fatalf("no revive among %v", by)
			}
			orig, revive := got.Scores[by["original resumed"]], got.Scores[i]
			if j, ok := by["claude compaction summary"]; ok && revive.Strict.InContext <= got.Scores[j].Strict.InContext {
				t.Errorf("revive keeps %d probes in context, Claude Code's summary %d", revive.Strict.InContext, got.Scores[j].Strict.InContext)
			}
			budget := 2 * revive.HopLimit // the hop limit is half the budget
			if revive.Tokens > budget {
				t.Errorf("revive: %d tokens, over its budget %d", revive.Tokens, budget)
			}
			if orig.Tokens > budget && revive.Tokens >= orig.Tokens {
				t.Errorf("revive: %d tokens, not lighter than the original resumed, %d, which is over the budget %d", revive.Tokens, orig.Tokens, budget)
			}
			if revive.Reachable != revive.Steps {
				t.Errorf("revive: %d of %d steps reachable, want every one", revive.Reachable, revive.Steps)
			}
			if !revive.Continues {
				t.Errorf("revive: the latest todo list or the last answer is not in context")
			}
			t.Logf("revive: %d tokens (original %d), strictly %+v", revive.Tokens, orig.Tokens, revive.Strict)
			var short []string
			for cat, n := range revive.ByCategory {
				if n.Strict.Probes > 0 && (n.Strict.InContext+n.Strict.OneHop)*10 < n.Strict.Probes*9 {
					short = append(short, fmt.Sprintf("%s %d+%d of %d", cat, n.Strict.InContext, n.Strict.OneHop, n.Strict.Probes))
				}
			}
			if len(short) > 0 {
				sort.Strings(short)
				t.Errorf("revive keeps under 90 %% in context or one hop, strictly: %s", strings.Join(short, "; "))
			}
		})
	}
}

type retentionCount struct {
	Probes    int `json:"probes"`
	InContext int `json:"in_context"`
	OneHop    int `json:"one_hop"`
	Lost      int `json:"lost"`
}
