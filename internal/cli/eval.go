package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/retention"
)

func (m *Main) runEval(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] != "retention" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
			return m.runEvalRetention(ctx, []string{"-h"})
		}
		return usageError("eval takes a measure: cairn eval retention SESSION")
	}
	return m.runEvalRetention(ctx, args[1:])
}

func (m *Main) runEvalRetention(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("eval retention", "[flags] SESSION", `
Measure what each way of continuing a session keeps of it. Probes come from
the session itself, by fixed rules (no model), in seven categories:

  artifact      files written, edited, deleted or moved away (rm, git rm, mv)
  command       Bash commands run
  error         errors met: the message, not "Exit code N"
  decision      decisions and conclusions stated in the agent's text
                (not "Let me …" narration)
  number        figures commands printed: test counts, sizes, percentages
                (not durations)
  prompt        each user prompt's first sentence, and its binding sentences
  continuation  the last todo list's items and the agent's last answer

Work before the first typed prompt (round 0 of a resumed or forked file)
is probed like any round's, its prompt aside.

Each probe is judged in each variant, strictly:

  in context   its answer is in its own step's text in the output: the step
               kept in full, or a line of cairn's summary that begins with
               the step's ref ("7.12 …"); not anywhere else
  one hop      an index line names the step by its own ROUND.STEP (a
               prompt: its round's row by its number) and cairn inject
               prints at most half the output's budget for it (of the
               default budget when it has none); a run of steps (7.3-7.9),
               a row for the steps of its round, a run of rounds or a
               sentence naming a range of steps counts for nothing
  lost         neither

and leniently, as earlier versions did: in context when the answer is
anywhere in the text, one hop when anything names its round or step. The
table shows, by category, in context + one hop as strict/lenient %, the
session's steps each variant reaches (in full or one hop) and how many
continuation probes are in context.

Variants: the original resumed as it is (the client loads from its last
compaction on: the steps after it are in context), Claude Code's own
compaction summary alone (when the session was compacted: it names no
step, so nothing in it is in context strictly), compress-before at the
middle round, revive, revive at partial fidelity, and revive with an index
of the steps before the client's compaction, each at the default budget.
Tokens are the estimate of what the client sends (the one the surgical
commands print).

  cairn eval retention 258c7280
  cairn eval retention --json 258c7280
  cairn eval retention --probes 258c7280     # list the probes`)
	sf.register(fs, true)
	curve := fs.String("curve", "", "also cut as revive does at these shares of the conversation the client loads, besides its overhead (e.g. 0.25,0.5,0.75,1): the retention/size curve")
	list := fs.Bool("probes", false, "list the probes (category, ref, question, answer) instead of measuring")
	model := fs.String("model", "", "also ask a model each probe against each variant (Messages API at $ANTHROPIC_BASE_URL, key $ANTHROPIC_API_KEY)")
	asked := fs.Int("model-probes", 30, "with --model: how many probes to ask per variant, spread over the list (0: all)")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError("eval retention takes one SESSION")
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	s, err := st.sessions.FindSessionByID(ctx, pos[0])
	if err != nil {
		return err
	}
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, WithBlocks: true})
	if err != nil {
		return err
	}
	rounds = evalRounds(s, rounds)
	if *list {
		probes := retention.Probes(s, rounds)
		if sf.json {
			return json.NewEncoder(m.Stdout).Encode(probes)
		}
		for _, p := range probes {
			fmt.Fprintf(m.Stdout, "%-12s %-7s %s\n             → %s\n", p.Category, p.Ref(), p.Question, p.Answer)
		}
		return nil
	}
	var shares []float64
	if *curve != "" {
		for _, f := range strings.Split(*curve, ",") {
			x, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil || x <= 0 || x > 1 {
				return usageError("--curve takes shares between 0 and 1, as 0.25,0.5,1; got %q", f)
			}
			shares = append(shares, x)
		}
	}
	rep, err := retention.Evaluate(ctx, st.surgery(), s, rounds, evalClient(s), shares...)
	if err != nil {
		return err
	}
	for _, f := range rep.Failed {
		fmt.Fprintf(m.Stderr, "eval retention: %s\n", f)
	}
	var judged []*retention.Score
	var api *messagesAPI
	if *model != "" {
		api = newMessagesAPI(m.Getenv, *model)
		for _, v := range rep.Variants {
			sc, err := retention.Ask(ctx, api, rep.Probes, v, *asked)
			if err != nil {
				return err
			}
			judged = append(judged, sc)
		}
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(struct {
			*retention.Report
			Probes  int                `json:"probes"`
			Model   string             `json:"model,omitempty"`
			ModelAt string             `json:"model_url,omitempty"`
			Judged  []*retention.Score `json:"model_judged,omitempty"`
			Note    string             `json:"note,omitempty"`
		}{rep, len(rep.Probes), *model, api.url(), judged, api.note()})
	}
	fmt.Fprintf(m.Stdout, "session %s · %d rounds · %d steps\n", s.ID, rep.Rounds, rep.Steps)
	if err := retention.Table(m.Stdout, rep.Probes, rep.Scores); err != nil {
		return err
	}
	if api == nil {
		return nil
	}
	fmt.Fprintf(m.Stdout, "\nModel-judged (%s at %s; a probe counts when the reply holds its answer):\n", *model, api.url())
	if n := api.note(); n != "" {
		fmt.Fprintln(m.Stdout, n)
	}
	return retention.Table(m.Stdout, rep.Probes, judged)
}

// claudeClient is Claude Code as the eval needs it: what it loads of a
// session's lines, and a materialization written as a session it resumes.
func claudeClient(s *cairn.Session) retention.Client {
	return retention.Client{
		Load: func(lines [][]byte) retention.Loaded {
			v := claudecode.LoadedView(lines)
			return retention.Loaded{Text: v.Text, Summary: v.Summary, FromLine: v.FromLine}
		},
		Write: func(mat *cairn.Materialization, summary string) ([][]byte, error) {
			x := &claudecode.Exporter{SessionID: claudecode.NewUUID(), Cwd: s.Project, Summary: summary}
			return x.Lines(mat)
		},
	}
}
