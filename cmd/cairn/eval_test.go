package main

import (
	"encoding/json"
	"strings"
	"testing"
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
