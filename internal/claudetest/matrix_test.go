package claudetest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/claudetest"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/sqlite"
)

// A matrixSession is a long or compacted session the matrix cuts.
type matrixSession struct {
	name string
	path string // its file; skipped when absent
}

// matrixSessions are the sessions of issue 11: long autonomous sessions
// with compactions, made by the real client (testdata/long) or
// taken from public repositories (../shared/testdata/transcripts).
var matrixSessions = []matrixSession{
	{"generated-long", "../../testdata/long/7a11c0de-0000-4000-8000-000000000150.jsonl"},
	{"generated-compact", "../../testdata/long/7a11c0de-0000-4000-8000-000000000151.jsonl"},
	{"spotter-tool_heavy", "../../../shared/testdata/transcripts/marot__spotter/tool_heavy.jsonl"},
	{"spotter-long-258c", "../../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl"},
	{"spotter-long-8463", "../../../shared/testdata/transcripts/marot__spotter/long/8463c716-a2ea-4c14-9efa-87158ebd9f20.jsonl"},
}

// matrixFidelities are the fidelities every operation is run at.
var matrixFidelities = []string{"full", "partial", "text", "thinking=omit,tool_use=summary,tool_result=omit"}

// A matrixOp is one surgical command, its arguments built from the session
// and its round count. refused, when set, is the error a session of that
// shape must get instead of an output.
type matrixOp struct {
	name string
	args func(id string, rounds int) []string
	// refused returns the part of the error expected when the operation
	// cannot apply to a session of n rounds, "" when it must succeed.
	refused func(rounds int) string
}

// early and late tag the first and second halves of a session's rounds
// (a one-round session has only late).
func halves(n int) (early, late string) {
	if n < 2 {
		return "", "1"
	}
	return fmt.Sprintf("1-%d", n/2), fmt.Sprintf("%d-%d", n/2+1, n)
}

var matrixOps = []matrixOp{
	{"compress-before", func(id string, n int) []string { return []string{"compress-before", id, fmt.Sprint(n/2 + 1)} }, nil},
	{"compress-engagement", func(id string, n int) []string { return []string{"compress-engagement", id, "early"} },
		func(n int) string {
			if n < 2 {
				return `is tagged "early"`
			}
			return ""
		}},
	{"extract-engagement", func(id string, n int) []string { return []string{"extract-engagement", id, "late"} }, nil},
	{"split", func(id string, n int) []string { return []string{"split", id, "tags"} }, nil},
	{"merge", func(id string, n int) []string { return []string{"merge", id, tools} }, nil},
	{"inject", func(id string, n int) []string { return []string{"inject", "--format", "claude", id, fmt.Sprint(n)} }, nil},
	{"revive", func(id string, n int) []string { return []string{"revive", id} }, nil},
}

// knownFailures are assertions that do not hold by design without a
// budget: `--budget 0` keeps every round and step the operation chose, as
// cairn did before budgets (issue 11 point 3), so a long autonomous round
// kept whole is as large as the original, and over the window on the
// spotter sessions. Key: "operation/session/assertion"; a "*" session
// matches every one. They apply to --budget 0 only (see known); each is
// reported with t.Skip after every other assertion of the case ran.
var knownFailures = map[string]string{
	"compress-before/*/smaller":    noBudget,
	"revive/*/smaller":             noBudget,
	"split/*/smaller":              noBudget,
	"inject/*/smaller":             noBudget,
	"extract-engagement/*/smaller": noBudget,
	"merge/*/smaller":              noBudget,
	"compress-before/*/window":     noBudget,
	"revive/*/window":              noBudget,
	"split/*/window":               noBudget,
	"inject/*/window":              noBudget,
	"merge/*/window":               noBudget,
	"compress-engagement/*/window": noBudget,
	"extract-engagement/*/window":  noBudget,
}

const noBudget = "--budget 0 asks for no budget: the rounds chosen are kept whole (issue 11 point 3)"

// TestMatrix is issue 11's proving ground: for every long or compacted
// session, operation and fidelity, cairn (the built command, as users run
// it) cuts the session, the real client resumes the output, and the
// request it sends is checked: what the API accepts (roles alternate,
// tool pairs intact, no empty blocks, thinking signed: [fakeapi.CheckRequest]),
// smaller than resuming the original (revive: when that is over its
// budget), the latest prompt and last answer of
// what was kept verbatim, and no tool output cairn compressed. It runs on
// $CAIRN_CLAUDE and, when set, $CAIRN_CLAUDE_OLDEST.
func TestMatrix(t *testing.T) {
	clients := claudetest.Clients(t)
	bin := claudetest.Cairn(t)
	dir := t.TempDir()
	env := &cairnEnv{bin: bin, store: filepath.Join(dir, "cairn.db"), home: filepath.Join(dir, "home")}
	env.run(t, "import", "../../testdata/claudecode/"+tools+".jsonl")

	// The whole matrix takes the better part of an hour on 2 cores; by
	// default (and in CI's go test ./...) a corner of it runs: the long
	// generated session and spotter's tool_heavy, at full and text
	// fidelity, at one budget. CAIRN_MATRIX=full runs all of it.
	full := os.Getenv("CAIRN_MATRIX") == "full"
	if !full {
		t.Logf("a corner of the matrix; CAIRN_MATRIX=full runs all of it")
	}
	var sessions []*matrixCase
	for _, s := range matrixSessions {
		if !full && s.name != "generated-long" && s.name != "spotter-tool_heavy" {
			continue
		}
		if _, err := os.Stat(s.path); err != nil {
			t.Logf("MATRIX SESSION %s NOT RUN: %v", s.name, err)
			continue
		}
		env.run(t, "import", s.path)
		id := sessionIDOf(t, s.path)
		var rr struct {
			Rounds []*cairn.Round `json:"rounds"`
		}
		if err := json.Unmarshal([]byte(env.run(t, "rounds", "--json", id)), &rr); err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, r := range rr.Rounds {
			n = max(n, r.Seq)
		}
		early, late := halves(n)
		if early != "" {
			env.run(t, "tag", "early", id, early)
		}
		env.run(t, "tag", "late", id, late)
		sessions = append(sessions, &matrixCase{matrixSession: s, id: id, rounds: n})
	}
	if len(sessions) == 0 {
		t.Skip("no matrix session found")
	}
	db := sqlite.NewDB(env.store)
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rounds := sqlite.NewRoundStore(db)

	// The budgets each case runs at, when this cairn has --budget (issue
	// 11): none (0, today's behaviour), the default (half the model's
	// window) and a tight one, 60,000 tokens: above the 45,000 cairn counts
	// for the client's own system prompt and tools, so the rounds degrade
	// rather than the command refusing. Without --budget: the operation's
	// own choice only.
	budgets := []string{""}
	if help, _ := env.try("compress-before", "-h"); strings.Contains(help, "-budget") {
		budgets = []string{"0", "default", "60000"}
		if !full {
			budgets = []string{"default"}
		}
	} else {
		t.Logf("BUDGET DIMENSION NOT RUN: this cairn has no --budget (issue 11, surgery branch)")
	}
	for n, c := range clients {
		version := claudetest.Version(t, c.Path)
		fidelities := matrixFidelities
		if n > 0 || !full {
			fidelities = []string{"full", "text"} // the oldest client: the two ends
		}
		t.Run(version, func(t *testing.T) {
			// A merge is measured against resuming both of its sources.
			other := resumeExport(t, c.Path, "../../testdata/claudecode/"+tools+".jsonl", tools, "E2E original tools: carry on from here.")
			for _, s := range sessions {
				t.Run(s.name, func(t *testing.T) {
					base := resumeExport(t, c.Path, s.path, s.id, "E2E original "+s.name+": carry on from here.")
					t.Logf("%s (%d rounds): resuming the original sends %d bytes (~%d tokens)", s.name, s.rounds, len(base.body), fakeapi.EstimateTokens(len(base.body)))
					for _, op := range matrixOps {
						for _, fid := range fidelities {
							for _, budget := range budgets {
								name := op.name + "/" + fid
								if budget != "" {
									name += "/budget=" + budget
								}
								t.Run(name, func(t *testing.T) {
									t.Parallel() // at most -parallel at once (default: GOMAXPROCS)
									args := append(op.args(s.id, s.rounds), "--fidelity", fid, "--cwd", claudetest.ScratchDir(t))
									if budget != "" && budget != "default" {
										args = append(args, "--budget", budget)
									}
									out, err := env.try(args...)
									if op.refused != nil {
										if want := op.refused(s.rounds); want != "" {
											if err == nil || !strings.Contains(out, want) {
												t.Fatalf("cairn %s: want a refusal saying %q, got err=%v:\n%s", strings.Join(args, " "), want, err, out)
											}
											return
										}
									}
									if err != nil && op.name == "revive" && budget == "0" && strings.Contains(out, "revive always fits a budget") {
										return // issue 11: revive always writes a session within a budget
									}
									if err != nil && op.name == "compress-before" && s.rounds == 1 && strings.Contains(out, "Nothing to compress") {
										// Issue 11: a one-round session that fits its budget has
										// nothing before round 1 to compress; cairn says so.
										t.Logf("refused: %s", strings.TrimSpace(out))
										return
									}
									if err != nil && budget != "" && budget != "0" && strings.Contains(out, "Does not fit in "+budget) {
										// Issue 11: when even the latest prompt and the last answer
										// do not fit, refuse with the figures.
										t.Logf("refused with its figures: %s", strings.TrimSpace(out))
										return
									}
									if err != nil {
										t.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
									}
									outputs := writtenRE.FindAllStringSubmatch(out, -1)
									if len(outputs) == 0 {
										t.Fatalf("cairn %s wrote nothing:\n%s", strings.Join(args, " "), out)
									}
									for _, w := range outputs {
										label := filepath.Base(w[1])
										t.Run(strings.TrimSuffix(label, ".jsonl")[:8], func(t *testing.T) {
											oc := &outputCase{client: c.Path, op: op.name, session: s, path: w[1], baseBytes: len(base.body), rounds: rounds, budget: budget}
											if op.name == "merge" {
												oc.baseBytes += len(other.body)
											}
											checkOutput(t, oc)
										})
									}
								})
							}
						}
					}
				})
			}
		})
	}
}

type matrixCase struct {
	matrixSession
	id     string
	rounds int
}

var writtenRE = regexp.MustCompile(`wrote (\S+\.jsonl)`)

// cairnEnv runs the cairn command on one store with a scratch HOME.
type cairnEnv struct {
	bin, store, home string
}

func (e *cairnEnv) try(args ...string) (string, error) {
	cmd := exec.Command(e.bin, args...)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + e.home, "CAIRN_STORE=" + e.store, "TZ=UTC"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (e *cairnEnv) run(tb testing.TB, args ...string) string {
	tb.Helper()
	out, err := e.try(args...)
	if err != nil {
		tb.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

// sessionIDOf returns the sessionId of a transcript's first line that has
// one.
func sessionIDOf(tb testing.TB, path string) string {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var l struct {
			SessionID string `json:"sessionId"`
		}
		if json.Unmarshal(line, &l) == nil && l.SessionID != "" {
			return l.SessionID
		}
	}
	tb.Fatalf("%s: no sessionId", path)
	return ""
}

// A resumedReq is a resumed session: the request the client sent with the new prompt.
type resumedReq struct {
	*request
	prompt string
}

// resumeFile puts a session file where the client looks for it (under a
// scratch HOME, in the project folder of a scratch cwd), resumes it with
// prompt and returns the request that carried the prompt.
func resumeExport(t *testing.T, bin, path, id, prompt string) *resumedReq {
	t.Helper()
	home, cwd := claudetest.ScratchDir(t), claudetest.ScratchDir(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(claudecode.ProjectsDir(home), claudecode.ProjectDirName(cwd))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, id+".jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	api := fakeapi.New()
	defer api.Close()
	start := time.Now()
	res := claudetest.Run(t, bin, home, cwd, api.URL, "--resume", id, "-p", prompt)
	if res.IsError {
		t.Fatalf("client reported an error resuming %s: %+v", path, res)
	}
	req := mainRequest(t, api, prompt)
	t.Logf("resumed %s in %v: %d messages, %d bytes", filepath.Base(path), time.Since(start).Round(time.Millisecond), len(req.Messages), len(req.body))
	return &resumedReq{req, prompt}
}

// An outputCase is one file cairn wrote, to resume and check.
type outputCase struct {
	client  string
	op      string
	session *matrixCase
	path    string
	// baseBytes is the size of the request resuming the original sends
	// (for a merge: both originals).
	baseBytes int
	rounds    *sqlite.RoundStore
	// budget is the --budget given: "" (cairn has none), "0" (none asked),
	// "default" (half the window: 100,000 tokens for these sessions) or
	// tokens.
	budget string
}

// budgetTokens is the budget the output must fit, 0 for none.
func (c *outputCase) budgetTokens() int {
	switch c.budget {
	case "", "0":
		return 0
	case "default":
		return 100_000 // half the 200k window of these sessions' models
	}
	var n int
	fmt.Sscan(c.budget, &n)
	return n
}

// known reports the issue that fixes a failing assertion, "" if none.
func (c *outputCase) known(assertion string) string {
	if c.budget != "" && c.budget != "0" {
		return "" // what a budget promises is never a known failure
	}
	for _, k := range []string{c.op + "/" + c.session.name + "/" + assertion, c.op + "/*/" + assertion} {
		if why := knownFailures[k]; why != "" {
			return why
		}
	}
	return ""
}

func checkOutput(t *testing.T, c *outputCase) {
	data, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSuffix(filepath.Base(c.path), ".jsonl")
	lines := claudecode.SplitLines(data)
	if err := claudecode.CheckResumable(id, lines); err != nil {
		t.Errorf("the export is not resumable: %v", err)
	}
	got := resumeExport(t, c.client, c.path, id, fmt.Sprintf("E2E %s of %s: carry on from here.", c.op, c.session.name))
	sent := readRequest(t, got.request)
	var failures []string // known failures, reported last

	// What the API accepts.
	for _, p := range fakeapi.CheckRequest(got.body, fakeapi.DefaultWindow) {
		if why := c.known("window"); why != "" && strings.Contains(p, "window: 'prompt is too long'") {
			failures = append(failures, "request: "+p+" — "+why)
			continue
		}
		t.Errorf("request: %s", p)
	}
	// Within the budget: the request's tokens estimated as bytes / 3, which
	// matched the usage of long real sessions within about 10 %.
	if limit := c.budgetTokens(); limit > 0 && fakeapi.EstimateTokens(len(got.body)) > limit*110/100 {
		t.Errorf("the request is ~%d tokens (%d bytes), over the budget of %d (+10%% for the estimate)", fakeapi.EstimateTokens(len(got.body)), len(got.body), limit)
	}
	// Smaller than resuming the original; revive only when the original is
	// over its budget (issue 41: it fits its budget, and a late
	// compaction's remnant is no ceiling).
	if len(got.body) >= c.baseBytes && !(c.op == "revive" && c.budgetTokens() > 0 && fakeapi.EstimateTokens(c.baseBytes) <= c.budgetTokens()) {
		msg := fmt.Sprintf("the request is %d bytes (~%d tokens), resuming the original sends %d (~%d tokens)",
			len(got.body), fakeapi.EstimateTokens(len(got.body)), c.baseBytes, fakeapi.EstimateTokens(c.baseBytes))
		if why := c.known("smaller"); why != "" {
			failures = append(failures, msg+" — "+why)
		} else {
			t.Error(msg)
		}
	}

	// What the export kept: the rounds it carries, its tool calls and the
	// results it kept whole.
	ctx := context.Background()
	kept := map[string]map[int]bool{} // session → rounds carried
	var exportUses []string
	for _, raw := range lines {
		var l struct {
			Type        string `json:"type"`
			CairnSource *struct {
				SessionID string `json:"sessionId"`
				Round     int    `json:"round"`
			} `json:"cairnSource"`
			Message *struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &l) != nil || l.CairnSource == nil {
			continue
		}
		if kept[l.CairnSource.SessionID] == nil {
			kept[l.CairnSource.SessionID] = map[int]bool{}
		}
		kept[l.CairnSource.SessionID][l.CairnSource.Round] = true
		if l.Message == nil {
			continue
		}
		for _, b := range blocksOf(l.Message.Content) {
			if b.Type == "tool_use" {
				exportUses = append(exportUses, b.ID)
			}
		}
	}
	for _, u := range exportUses {
		if _, ok := sent.uses[u]; !ok {
			t.Errorf("tool_use %s of the export is not in the request: the client dropped it", u)
		}
	}
	for sid, seqs := range kept {
		last := 0
		for seq := range seqs {
			last = max(last, seq)
		}
		r, err := c.rounds.FindRound(ctx, sid, last)
		if err != nil {
			t.Fatal(err)
		}
		// The latest prompt and the last answer kept arrive verbatim.
		prompt, answer := "", ""
		for _, b := range r.Blocks {
			switch {
			case b.Kind == cairn.UserText && prompt == "":
				prompt = b.Content
			case b.Kind == cairn.AssistantText && !b.Sidechain:
				answer = b.Content
			}
		}
		if prompt != "" && !sent.hasText(prompt) {
			t.Errorf("%s round %d: the latest prompt %.80q is not in the request verbatim", sid[:8], last, prompt)
		}
		if answer != "" && !sent.hasText(answer) {
			t.Errorf("%s round %d: the last answer %.80q is not in the request verbatim", sid[:8], last, answer)
		}
		// No tool output cairn compressed: a result of the source that the
		// export does not carry whole is not in the request whole.
		all, err := c.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sid, FromSeq: 1, WithBlocks: true})
		if err != nil {
			t.Fatal(err)
		}
		for _, rr := range all {
			for _, b := range rr.Blocks {
				if b.Kind != cairn.ToolResult || len(b.Content) < 200 {
					continue
				}
				tail := jsonQuote(lastChars(strings.TrimSpace(b.Content), 120))
				if !strings.Contains(string(data), tail) && strings.Contains(string(got.body), tail) {
					t.Errorf("round %d: the result of %s (%d chars) was compressed by cairn but arrives whole", rr.Seq, b.ToolID, len(b.Content))
				}
			}
		}
	}
	t.Logf("%s: %d lines exported; request %d bytes (~%d tokens, original %d), %d messages, %d tool calls",
		c.op, len(lines), len(got.body), fakeapi.EstimateTokens(len(got.body)), fakeapi.EstimateTokens(c.baseBytes), len(got.Messages), len(sent.uses))
	for _, f := range failures {
		t.Skip("KNOWN FAILURE: " + f)
	}
}

// lastChars returns the last n characters of s.
func lastChars(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[len(r)-n:])
}

// jsonQuote is s as it appears inside a JSON string, without the quotes.
func jsonQuote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)
	return strings.TrimSuffix(strings.TrimSpace(b.String()), `"`)[1:]
}
