package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"cairn/internal/fakeapi"
)

// TestEvalRetention runs eval retention on a long auto-compacted public
// session and checks the variants it reports and their ordering: the
// compaction summary keeps less than the original resumed as is.
func TestEvalRetention(t *testing.T) {
	c := newCLI(t)
	const long = "../../../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"
	if _, err := c.try("import", "--store", c.store, long); err != nil {
		t.Skipf("SKIPPING: the public long session is not here: %v", err)
	}
	out := c.run("eval", "retention", "--json", "8463c716")
	var got struct {
		Probes int
		Scores []struct {
			Variant string
			Tokens  int
			All     struct {
				Probes    int `json:"probes"`
				InContext int `json:"in_context"`
				OneHop    int `json:"one_hop"`
				Lost      int `json:"lost"`
			} `json:"all"`
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	by := map[string]int{}
	for i, s := range got.Scores {
		by[s.Variant] = i
		if s.All.InContext+s.All.OneHop+s.All.Lost != got.Probes || s.Tokens <= 0 {
			t.Errorf("%s: verdicts %+v do not add up to %d probes, or no tokens (%d)", s.Variant, s.All, got.Probes, s.Tokens)
		}
	}
	for _, v := range []string{"original resumed", "claude compaction summary", "revive", "revive (partial)"} {
		if _, ok := by[v]; !ok {
			t.Fatalf("no variant %q in %s", v, out)
		}
	}
	orig, summary := got.Scores[by["original resumed"]], got.Scores[by["claude compaction summary"]]
	if summary.All.InContext >= orig.All.InContext || summary.Tokens >= orig.Tokens {
		t.Errorf("the compaction summary should keep less at fewer tokens than the original: %+v vs %+v", summary, orig)
	}
	table := c.run("eval", "retention", "8463c716")
	if !strings.Contains(table, "IN CONTEXT") || !strings.Contains(table, "claude compaction summary") {
		t.Errorf("table:\n%s", table)
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
// auto-compacted public sessions: revive at the default budget keeps at
// least 90 % of the probes of every category in context or one hop, more
// in context than Claude Code's own compaction summary, at no more tokens
// than the client loads for the original.
func TestEvalRetentionGoal(t *testing.T) {
	for _, id := range []string{"258c7280-ae70-4798-800f-63464d01a85d", "8463c716-a2ea-4c14-9efa-87158ebd9f20"} {
		t.Run(id[:8], func(t *testing.T) {
			c := newCLI(t)
			path := "../../../shared/testdata/transcripts/marot__spotter/long/" + id + ".jsonl"
			if _, err := os.Stat(path); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("the public long session must be here in CI: %v", err)
				}
				t.Skipf("SKIPPING: the public long session is not here: %v", err)
			}
			c.run("import", path)
			var got struct {
				Scores []struct {
					Variant    string
					Tokens     int
					All        retentionCount            `json:"all"`
					ByCategory map[string]retentionCount `json:"by_category"`
				}
			}
			if err := json.Unmarshal([]byte(c.run("eval", "retention", "--json", id)), &got); err != nil {
				t.Fatal(err)
			}
			by := map[string]int{}
			for i, s := range got.Scores {
				by[s.Variant] = i
			}
			orig, summary, revive := got.Scores[by["original resumed"]], got.Scores[by["claude compaction summary"]], got.Scores[by["revive"]]
			if revive.Variant != "revive" || summary.Variant == "" {
				t.Fatalf("variants %v", by)
			}
			for cat, n := range revive.ByCategory {
				if n.Probes > 0 && (n.InContext+n.OneHop)*10 < n.Probes*9 {
					t.Errorf("revive keeps %d+%d of %d %s probes in context or one hop: under 90 %%", n.InContext, n.OneHop, n.Probes, cat)
				}
			}
			if revive.All.InContext <= summary.All.InContext {
				t.Errorf("revive keeps %d probes in context, Claude Code's summary %d", revive.All.InContext, summary.All.InContext)
			}
			if revive.Tokens > orig.Tokens {
				t.Errorf("revive: %d tokens, the original resumed %d", revive.Tokens, orig.Tokens)
			}
			t.Logf("revive: %d tokens (original %d), %+v", revive.Tokens, orig.Tokens, revive.All)
		})
	}
}

type retentionCount struct {
	Probes    int `json:"probes"`
	InContext int `json:"in_context"`
	OneHop    int `json:"one_hop"`
	Lost      int `json:"lost"`
}
