package pitest_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
)

// longSource is a real long session (a Claude Code one, 2.8 MB), crossed
// into pi for the retention eval.
const longSource = "../../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl"

// A count is a score's verdicts.
type count struct {
	InContext int `json:"in_context"`
	OneHop    int `json:"one_hop"`
	Lost      int `json:"lost"`
}

// A score is one row of `cairn eval retention --json`.
type score struct {
	Variant    string `json:"variant"`
	Tokens     int    `json:"tokens"`
	Strict     count  `json:"strict"`
	ByCategory map[string]struct {
		Strict count `json:"strict"`
	} `json:"by_category"`
	Steps     int  `json:"steps"`
	Reachable int  `json:"reachable"`
	Continues bool `json:"continues"`
}

// evalRow runs cairn eval retention on the session file (imported into a
// store of its own) and returns the row named variant.
func evalRow(t *testing.T, h *pitest.Home, bin, file, variant string) score {
	t.Helper()
	store := filepath.Join(t.TempDir(), "eval.db")
	h.Env = append(h.Env, "CAIRN_STORE="+store)
	defer func() { h.Env = h.Env[:len(h.Env)-1] }()
	cairnIn(t, h, bin, nil, "import", file)
	id := strings.TrimSuffix(filepath.Base(file)[strings.LastIndex(filepath.Base(file), "_")+1:], ".jsonl")
	out := cairnIn(t, h, bin, nil, "eval", "retention", "--json", id)
	var rep struct {
		Scores []score `json:"scores"`
	}
	if err := json.Unmarshal(out[strings.IndexByte(string(out), '{'):], &rep); err != nil {
		t.Fatalf("eval: %v\n%s", err, out)
	}
	for _, s := range rep.Scores {
		if s.Variant == variant {
			return s
		}
	}
	t.Fatalf("no %q row in %s", variant, out)
	return score{}
}

func (s score) String() string {
	var cats []string
	for c := range s.ByCategory {
		cats = append(cats, c)
	}
	sort.Strings(cats)
	var b strings.Builder
	n := s.Strict.InContext + s.Strict.OneHop + s.Strict.Lost
	b.WriteString(s.Variant + ": ~" + itoa(s.Tokens) + " tokens; strict " + itoa(s.Strict.InContext) + " in context + " + itoa(s.Strict.OneHop) + " one hop of " + itoa(n) + " probes;")
	for _, c := range cats {
		j := s.ByCategory[c].Strict
		b.WriteString(" " + c + " " + itoa(j.InContext+j.OneHop) + "/" + itoa(j.InContext+j.OneHop+j.Lost))
	}
	b.WriteString("; steps reached " + itoa(s.Reachable) + "/" + itoa(s.Steps))
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// runLong crosses the long session (source) into pi with bin's revive
// --to pi and goes on with it in the real pi with a reply of 190,000
// tokens, past pi's compaction point of a 200,000 window; with cairn's
// extension running command unless command is "", and one more prompt
// after the compaction when after is set. It returns the session file,
// the requests and the home.
func runLong(t *testing.T, c pitest.Client, bin, command, source string, after bool) (string, []fakeapi.Request, *pitest.Home) {
	t.Helper()
	api := fakeapi.New(fakeapi.Turn{Match: "go on with the work", Steps: [][]fakeapi.Block{
		{{Type: "text", Text: "Going on: the next step is the spotter tests."}},
	}})
	t.Cleanup(api.Close)
	h := pitest.NewHome(t, api.URL)
	h.Env = []string{"CAIRN_STORE=" + filepath.Join(h.Root, "cairn.db")}
	cairnIn(t, h, bin, nil, "import", source)
	out := string(cairnIn(t, h, bin, nil, "revive", "--to", "pi", "--budget", "400000", "--before-compaction", "full", "--cwd", h.Cwd, "258c7280"))
	m := regexp.MustCompile(`wrote (\S+)\n`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("revive: %s", out)
	}
	if command != "" {
		cairnIn(t, h, bin, nil, "install", "pi", "--command", command)
	}
	api.SetInputTokens(190_000)
	h.Run(t, c.Bin, "go on with the work", "--session", m[1])
	if after {
		api.SetInputTokens(100)
		h.Run(t, c.Bin, "and after the compaction", "--session", m[1])
	}
	return m[1], api.Requests(), h
}

// TestCompactionTimeLong (issue 45; CAIRN_PI_TIMING=N, N rounds of about
// 10 s each): the time pi 0.73.1 takes to compact the long session crossed
// into pi (from its last entry to the compaction entry), by itself (the
// stand-in answers its summary request at once) and with cairn's
// extension, N times each in turn; with CAIRN_PI_TIMING_OLD naming another
// cairn binary, with its extension too, in the same turns. Each compaction
// must be the one its run asks for.
func TestCompactionTimeLong(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("CAIRN_PI_TIMING"))
	if n <= 0 {
		t.Skip("CAIRN_PI_TIMING=N times pi's own compaction of the long pi session against cairn's, N times each")
	}
	source, err := filepath.Abs(longSource)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(source); err != nil {
		t.Skipf("no long transcript: %v", err)
	}
	c := pitest.NewestClient(t)
	bin := buildCairn(t)
	commands := []struct{ name, command string }{{"pi's own", ""}, {"cairn's", bin}}
	if old := os.Getenv("CAIRN_PI_TIMING_OLD"); old != "" {
		commands = append(commands, struct{ name, command string }{"cairn's (" + old + ")", old})
	}
	took := make([][]time.Duration, len(commands))
	prepared := make([]int, len(commands))
	for i := range n {
		for k := range commands {
			k := (k + i) % len(commands)
			file, _, _ := runLong(t, c, bin, commands[k].command, source, false)
			comp, d := compactionIn(t, file)
			if fromHook := comp["fromHook"] == true; fromHook != (commands[k].command != "") {
				t.Fatalf("%s compaction: fromHook %v", commands[k].name, comp["fromHook"])
			}
			took[k] = append(took[k], d)
			if details, _ := comp["details"].(map[string]any); details["prepared"] == true {
				prepared[k]++
			}
		}
	}
	for k, c := range commands {
		ds := slices.Clone(took[k])
		slices.Sort(ds)
		t.Logf("%s compaction: median %v, min %v, max %v of %v; %d prepared ahead", c.name, ds[len(ds)/2], ds[0], ds[len(ds)-1], took[k], prepared[k])
	}
}

// TestRetentionLong (issue 45, 3; CAIRN_PI_RETENTION=1, about two
// minutes): a real long session (2.8 MB, crossed into pi by revive --to
// pi with no cut) goes on in the real pi 0.73.1 with a reply of 190,000
// tokens, past pi's compaction point of a 200,000 window: once compacted
// by pi itself, once by cairn's extension. The strict retention eval
// judges what pi loads after its own compaction (its summary, which names
// no step, and the entries it keeps) and cairn's compaction (the revive
// cairn hands pi, of the session as it was when pi compacted); pi's
// commands and files are probed as Claude Code's are, and cairn's
// compaction keeps as much of every category in context or one hop away.
func TestRetentionLong(t *testing.T) {
	if os.Getenv("CAIRN_PI_RETENTION") == "" {
		t.Skip("CAIRN_PI_RETENTION=1 runs the retention eval of a long pi session (about two minutes)")
	}
	source, err := filepath.Abs(longSource)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(source); err != nil {
		t.Skipf("no long transcript: %v", err)
	}
	c := pitest.NewestClient(t)
	bin := buildCairn(t)
	run := func(withCairn bool) (string, []fakeapi.Request, *pitest.Home) {
		command := ""
		if withCairn {
			command = bin
		}
		return runLong(t, c, bin, command, source, true)
	}
	lastBody := func(reqs []fakeapi.Request) int {
		for i := len(reqs) - 1; i >= 0; i-- {
			var req fakeapi.MessagesRequest
			if json.Unmarshal(reqs[i].Body, &req) == nil && len(req.Tools) > 0 {
				return len(reqs[i].Body)
			}
		}
		return 0
	}

	ownFile, ownReqs, ownHome := run(false)
	own := evalRow(t, ownHome, bin, ownFile, "original resumed")
	n, size := summaryRequests(ownReqs)
	_, ownTook := compactionIn(t, ownFile)
	t.Logf("pi's own compaction: %v (the stand-in answers at once), %d summary request(s), %d bytes (~%d tokens) sent to summarize; the request after it ~%d tokens", ownTook, n, size, fakeapi.EstimateTokens(size), fakeapi.EstimateTokens(lastBody(ownReqs)))
	t.Logf("  %s", own)

	cairnFile, cairnReqs, cairnHome := run(true)
	data, err := os.ReadFile(cairnFile)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(data), `{"type":"compaction"`)
	if at < 0 || !strings.Contains(string(data[at:]), `"fromHook":true`) {
		t.Fatal("pi did not take cairn's compaction")
	}
	before := filepath.Join(filepath.Dir(cairnFile), "before-"+filepath.Base(cairnFile))
	if err := os.WriteFile(before, data[:at], 0o644); err != nil {
		t.Fatal(err)
	}
	mine := evalRow(t, cairnHome, bin, before, "revive")
	whole := evalRow(t, cairnHome, bin, before, "original resumed")
	if n, _ := summaryRequests(cairnReqs); n != 0 {
		t.Errorf("%d summary requests with cairn's extension", n)
	}
	comp, took := compactionIn(t, cairnFile)
	t.Logf("cairn's compaction: %v (the extension %v ms), no summary request; the request after it ~%d tokens", took, comp["details"].(map[string]any)["ms"], fakeapi.EstimateTokens(lastBody(cairnReqs)))
	t.Logf("  %s", mine)
	t.Logf("the session as it was when pi compacted, whole: %s", whole)
	for _, c := range []string{"artifact", "command"} {
		if j := whole.ByCategory[c].Strict; j.InContext+j.OneHop+j.Lost == 0 {
			t.Errorf("no %s probes: pi's calls are not read as the probe rules know them", c)
		}
	}
	for c, j := range own.ByCategory {
		o, m := j.Strict.InContext+j.Strict.OneHop, mine.ByCategory[c].Strict.InContext+mine.ByCategory[c].Strict.OneHop
		if m < o {
			t.Errorf("%s: cairn's compaction keeps %d, pi's own %d", c, m, o)
		}
	}
}
