package main

import (
	"context"
	"encoding/json"
	"fmt"

	"cairn"
	"cairn/claudecode"
	"cairn/retention"
	"cairn/surgery"
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
the session itself, by fixed rules (no model): files written or edited,
commands run, figures they printed, errors met, decisions stated in the
agent's text, constraints stated in the user's prompts. Each probe is judged
in each variant:

  in context   its answer is in the text the client would send
  one hop      an index line names its round or step: cairn inject brings it back
  lost         neither

Variants: the original resumed as it is (the client loads from its last
compaction on), Claude Code's own compaction summary alone (when the session
was compacted), compress-before at the middle round, revive, and revive at
partial fidelity, each at the default budget. Tokens are the estimate of
what the client sends (the one the surgical commands print).

  cairn eval retention 258c7280
  cairn eval retention --json 258c7280
  cairn eval retention --probes 258c7280     # list the probes`)
	sf.register(fs, true)
	list := fs.Bool("probes", false, "list the probes instead of measuring")
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
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, FromSeq: 1, WithBlocks: true})
	if err != nil {
		return err
	}
	probes := retention.Probes(s, rounds)
	if *list {
		if sf.json {
			return json.NewEncoder(m.Stdout).Encode(probes)
		}
		for _, p := range probes {
			fmt.Fprintf(m.Stdout, "%-10s %-7s %s\n           → %s\n", p.Category, p.Ref(), p.Question, p.Answer)
		}
		return nil
	}
	variants, err := m.retentionVariants(ctx, st, s, rounds)
	if err != nil {
		return err
	}
	var scores []*retention.Score
	for _, v := range variants {
		scores = append(scores, retention.Measure(probes, v))
	}
	var judged []*retention.Score
	var api *messagesAPI
	if *model != "" {
		api = newMessagesAPI(m.Getenv, *model)
		for _, v := range variants {
			sc, err := retention.Ask(ctx, api, probes, v, *asked)
			if err != nil {
				return err
			}
			judged = append(judged, sc)
		}
	}
	if sf.json {
		return json.NewEncoder(m.Stdout).Encode(struct {
			Session string             `json:"session"`
			Probes  int                `json:"probes"`
			Scores  []*retention.Score `json:"scores"`
			Model   string             `json:"model,omitempty"`
			ModelAt string             `json:"model_url,omitempty"`
			Judged  []*retention.Score `json:"model_judged,omitempty"`
			Note    string             `json:"note,omitempty"`
		}{s.ID, len(probes), scores, *model, api.url(), judged, api.note()})
	}
	fmt.Fprintf(m.Stdout, "session %s · %d rounds\n", s.ID, len(rounds))
	if err := retention.Table(m.Stdout, probes, scores); err != nil {
		return err
	}
	if api == nil {
		return nil
	}
	fmt.Fprintf(m.Stdout, "\nModel-judged (%s at %s; a probe counts when the reply holds its answer):\n", *model, api.url())
	if n := api.note(); n != "" {
		fmt.Fprintln(m.Stdout, n)
	}
	return retention.Table(m.Stdout, probes, judged)
}

// retentionVariants materializes the ways of continuing session s that
// eval retention compares.
func (m *Main) retentionVariants(ctx context.Context, st *store, s *cairn.Session, rounds []*cairn.Round) ([]*retention.Variant, error) {
	lines, err := st.lines.FindLines(ctx, s.ID, 0, 0)
	if err != nil {
		return nil, err
	}
	raws := make([][]byte, len(lines))
	for i, l := range lines {
		raws[i] = l.Raw
	}
	sst := st.surgery()
	sst.LinesOnly = true
	resumed, err := surgery.Resume(ctx, sst, s.ID)
	if err != nil {
		return nil, err
	}
	orig := claudecode.LoadedView(raws)
	out := []*retention.Variant{{Name: "original resumed", Tokens: int(surgery.Estimate(resumed)), Text: orig.Text}}
	if orig.Summary != "" {
		out = append(out, &retention.Variant{Name: "claude compaction summary", Tokens: int(cairn.EstimateTokens(orig.Summary)), Text: orig.Summary})
	}
	// Every variant is cut at the default budget, as the commands cut it.
	sst.Limits = surgery.Limits{Budget: surgery.AutoBudget}
	partial, _ := cairn.ParseFidelity("partial")
	type op struct {
		name string
		run  func() (*cairn.Materialization, error)
	}
	ops := []op{
		{"compress-before (middle)", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, sst, s.ID, surgery.Point{Seq: len(rounds)/2 + 1}, cairn.FullFidelity)
		}},
		{"revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, sst, s.ID, "", "", cairn.FullFidelity)
		}},
		{"revive (partial)", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, sst, s.ID, "", "", partial)
		}},
		{"revive (--before-compaction index)", func() (*cairn.Materialization, error) {
			idx := sst
			idx.Limits.BeforeCompaction = surgery.BeforeIndex
			return surgery.Revive(ctx, idx, s.ID, "", "", cairn.FullFidelity)
		}},
	}
	for _, o := range ops {
		mat, err := o.run()
		if err != nil {
			fmt.Fprintf(m.Stderr, "eval retention: %s: %v\n", o.name, err)
			continue
		}
		x := &claudecode.Exporter{SessionID: claudecode.NewUUID(), Cwd: s.Project, Summary: surgery.Summary(mat)}
		out1, err := x.Lines(mat)
		if err != nil {
			fmt.Fprintf(m.Stderr, "eval retention: %s: %v\n", o.name, err)
			continue
		}
		view := claudecode.LoadedView(out1)
		v := &retention.Variant{Name: o.name, Tokens: int(surgery.Estimate(mat)), Text: view.Text, Named: map[string]bool{}}
		for _, r := range mat.IndexRounds() {
			v.Named[fmt.Sprint(r.Seq)] = true
		}
		for _, p := range mat.FullPieces() {
			if c := p.Compaction; c != nil { // "steps 7.1 to 7.40 … are stored in full"
				for i := 1; i <= c.StepsBefore; i++ {
					v.Named[fmt.Sprintf("%d.%d", c.RoundSeq, i)] = true
				}
			}
			for _, e := range p.Index { // "7.12 Bash …": step 12 of round 7
				v.Named[e.Ref()] = true
			}
		}
		out = append(out, v)
	}
	return out, nil
}
