package main

import (
	"encoding/json"
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
