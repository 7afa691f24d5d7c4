package retention

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

// A Client is what the eval needs of the harness that resumes an output,
// so that this package reads no transcript format itself: the edge hands
// in Claude Code's (claudecode.LoadedView and claudecode.Exporter).
type Client struct {
	// Load returns what the client loads when it resumes a session made of
	// lines.
	Load func(lines [][]byte) Loaded
	// Write returns m written as a session the client resumes, summary
	// being the text it reads first.
	Write func(m *cairn.Materialization, summary string) ([][]byte, error)
}

// Loaded is what a client loads of a session.
type Loaded struct {
	// Text is every message it sends, as text.
	Text string
	// Summary is its own compaction summary, "" when it compacted none.
	Summary string
	// FromLine is the first of the lines it loads (1-based, counted in the
	// lines given): the line of its last compaction, else 1.
	FromLine int
}

// A Report is a session's probes judged in each way of continuing it.
type Report struct {
	Session  string     `json:"session"`
	Rounds   int        `json:"rounds"`
	Steps    int        `json:"steps"`
	Probes   []*Probe   `json:"-"`
	Scores   []*Score   `json:"scores"`
	Failed   []string   `json:"failed,omitempty"` // variants that could not be built, with why
	Variants []*Variant `json:"-"`
}

// Evaluate builds the variants of session s ([Variants]), derives its
// probes and judges them in each. rounds are s's rounds with their blocks,
// round 0 among them (judged when it holds work).
func Evaluate(ctx context.Context, st surgery.Store, s *cairn.Session, rounds []*cairn.Round, c Client, curve ...float64) (*Report, error) {
	rounds = worked(rounds)
	vs, failed, err := Variants(ctx, st, s, rounds, c, curve...)
	if err != nil {
		return nil, err
	}
	steps := StepRefs(rounds)
	r := &Report{Session: s.ID, Rounds: len(rounds), Steps: len(steps), Probes: Probes(s, rounds), Failed: failed, Variants: vs}
	for _, v := range vs {
		r.Scores = append(r.Scores, Measure(r.Probes, steps, v))
	}
	return r, nil
}

// Variants materializes the ways of continuing session s the eval
// compares: the original resumed as it is, the client's own compaction
// summary alone (when it compacted), compress-before at the middle round,
// revive, revive at partial fidelity and revive keeping an index of what
// preceded the client's compaction, each at the default budget; then, for
// each share of curve, the same cut as revive fitted in the client's
// overhead plus that share of the conversation it loads today (the
// retention/size curve revive's budget rule is chosen from). An operation
// that fails is left out and named in failed.
func Variants(ctx context.Context, st surgery.Store, s *cairn.Session, rounds []*cairn.Round, c Client, curve ...float64) (out []*Variant, failed []string, err error) {
	lines, err := st.Lines.FindLines(ctx, s.ID, 0, 0)
	if err != nil {
		return nil, nil, err
	}
	raws := make([][]byte, len(lines))
	for i, l := range lines {
		raws[i] = l.Raw
	}
	st.LinesOnly = true // the steps' text comes from rounds, not from the pieces
	st.Limits = surgery.Limits{}
	resumed, err := surgery.Resume(ctx, st, s.ID)
	if err != nil {
		return nil, nil, err
	}
	orig := c.Load(raws)
	from := 1
	if orig.FromLine > 1 && orig.FromLine <= len(lines) {
		from = lines[orig.FromLine-1].No
	}
	v := &Variant{Name: "original resumed", Tokens: int(surgery.Estimate(resumed)), Text: orig.Text, HopLimit: HopLimit(0)}
	loadedFrom(v, rounds, from)
	out = append(out, v)
	if orig.Summary != "" {
		out = append(out, &Variant{Name: "claude compaction summary", Tokens: int(cairn.EstimateTokens(orig.Summary)), Text: orig.Summary, HopLimit: HopLimit(0),
			Note: "the client's summary names no step, so nothing in it is in context strictly; lenient figures only."})
	}
	// Every variant is cut at the default budget, as the commands cut it.
	st.Limits = surgery.Limits{Budget: surgery.AutoBudget}
	partial, _ := cairn.ParseFidelity("partial")
	index := st
	index.Limits.BeforeCompaction = surgery.BeforeIndex
	ops := []struct {
		name string
		run  func() (*cairn.Materialization, error)
	}{
		{"compress-before (middle)", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, st, s.ID, surgery.Point{Seq: rounds[len(rounds)/2].Seq}, cairn.FullFidelity)
		}},
		{"revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, st, s.ID, "", "", cairn.FullFidelity)
		}},
		{"revive (partial)", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, st, s.ID, "", "", partial)
		}},
		{"revive (--before-compaction index)", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, index, s.ID, "", "", cairn.FullFidelity)
		}},
	}
	for _, share := range curve {
		b := surgery.ShareBudget(resumed, share)
		at := st
		at.Limits.Budget = b
		ops = append(ops, struct {
			name string
			run  func() (*cairn.Materialization, error)
		}{fmt.Sprintf("revive's cut at %.0f%% (budget %d)", 100*share, b), func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, at, s.ID, surgery.Point{Seq: 1}, cairn.FullFidelity)
		}})
	}
	for _, o := range ops {
		m, err := o.run()
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", o.name, err))
			continue
		}
		summary := surgery.Summary(m)
		written, err := c.Write(m, summary)
		if err != nil {
			failed = append(failed, fmt.Sprintf("%s: %v", o.name, err))
			continue
		}
		out = append(out, FromMaterialization(o.name, m, summary, c.Load(written).Text, rounds))
	}
	return out, failed, nil
}

// HopLimit is the largest expansion one hop may have in an output fitted
// in budget: [surgery.HopLimit], half of it (of the default budget when
// budget is 0).
func HopLimit(budget int64) int64 {
	if budget <= 0 {
		budget = surgery.DefaultBudget("")
	}
	return surgery.HopLimit(budget)
}

// FromMaterialization is the variant of materialization m of a session
// whose rounds (with blocks) are rounds: summary is what cairn's summary
// says (surgery.Summary(m)), text what the client loads of m written out.
// A full piece holds, for each step, its blocks on the lines it keeps, at
// its fidelity; a line of the summary holds the step its line begins with
// (a range "7.3-7.9" holds none); an index line of one step is a hop of
// its expansion to that step, named by its own ROUND.STEP; a round shown
// as an index row is a hop to its prompt, of the whole round. A run of
// steps (7.3-7.9), a row or a run of rounds names no step by its ref: one
// hop to none of them, strictly.
func FromMaterialization(name string, m *cairn.Materialization, summary, text string, rounds []*cairn.Round) *Variant {
	v := &Variant{Name: name, Tokens: int(surgery.Estimate(m)), Text: text, HopLimit: HopLimit(m.Budget),
		Named: map[string]bool{}, Steps: map[string]string{}, Full: map[string]bool{}, Hops: map[string]int64{}}
	bySeq := map[string]*cairn.Round{}
	for _, r := range rounds {
		bySeq[key(r.SessionID, r.Seq)] = r
	}
	for _, p := range m.Pieces {
		r := bySeq[key(p.Round.SessionID, p.Round.Seq)]
		if r == nil {
			continue
		}
		round := fmt.Sprint(r.Seq)
		steps := cairn.Steps(r.Blocks, r.LastLine)
		if p.Full {
			keptSteps(v, r, steps, p.Kept, p.FidelityOr(m.Fidelity))
		} else {
			// A row names its round by its own ref: a hop for the prompt;
			// its steps only leniently.
			v.Named[round] = true
			v.hop(round, roundTokens(r))
			for _, st := range steps {
				v.Named[stepRef(st)] = true
			}
		}
		for _, e := range p.Index {
			if e.From == 0 {
				v.Named[round] = true
				v.hop(round, e.Tokens)
			}
			for _, st := range steps {
				if e.Names(r.Seq, st.Seq) {
					v.Named[stepRef(st)] = true
					if e.From == e.To { // a step's own line: a run names none of its steps by its ref
						v.hop(stepRef(st), e.Tokens)
					}
				}
			}
		}
		if c := p.Compaction; c != nil { // "steps 7.1 to 7.40 … are stored in full": lenient only
			for i := 1; i <= c.StepsBefore; i++ {
				v.Named[fmt.Sprintf("%d.%d", c.RoundSeq, i)] = true
			}
		}
	}
	for _, line := range strings.Split(summary, "\n") {
		if ref := lineRef(line); ref != "" {
			v.Steps[ref] += line + "\n"
		}
	}
	return v
}

// loadedFrom fills v with the steps of rounds the client loads from
// session line from on, as stored: a step is in full when it starts there.
func loadedFrom(v *Variant, rounds []*cairn.Round, from int) {
	v.Steps, v.Full = map[string]string{}, map[string]bool{}
	for _, r := range rounds {
		keptSteps(v, r, cairn.Steps(r.Blocks, r.LastLine), func(no int) bool { return no >= from }, cairn.FullFidelity)
	}
	for _, r := range rounds {
		for _, st := range cairn.Steps(r.Blocks, r.LastLine) {
			if st.FirstLine < from {
				delete(v.Full, stepRef(st))
			}
		}
	}
}

// keptSteps adds to v the text of round r's prompt and steps on the lines
// kept says are kept, rendered at fidelity f.
func keptSteps(v *Variant, r *cairn.Round, steps []*cairn.Step, kept func(int) bool, f cairn.Fidelity) {
	inStep := map[*cairn.Block]bool{}
	for _, st := range steps {
		var bs []*cairn.Block
		for _, b := range st.Blocks {
			inStep[b] = true
			if !b.Sidechain && kept(b.LineNo) {
				bs = append(bs, b)
			}
		}
		if len(bs) > 0 {
			v.Steps[stepRef(st)] += render(r, bs, f)
			v.Full[stepRef(st)] = true
		}
	}
	var prompt []*cairn.Block
	for _, b := range r.Blocks {
		if !inStep[b] && !b.Sidechain && kept(b.LineNo) {
			prompt = append(prompt, b)
		}
	}
	if len(prompt) > 0 {
		v.Steps[fmt.Sprint(r.Seq)] += render(r, prompt, f)
	}
}

// render writes blocks as the client reads them at fidelity f: text as
// it is, a tool call as its name and its input's values, a condensed
// block as what stands for it.
func render(r *cairn.Round, blocks []*cairn.Block, f cairn.Fidelity) string {
	var b strings.Builder
	for _, bl := range surgery.Apply(&cairn.Round{SessionID: r.SessionID, Seq: r.Seq, Blocks: blocks}, f).Blocks {
		if bl.Kind == cairn.ToolUse && bl.Detail == "" {
			b.WriteString(bl.ToolName)
			cairn.WriteInputValues(&b, []byte(bl.Content))
		} else {
			b.WriteString(bl.Content)
		}
		b.WriteString("\n\n")
	}
	return b.String()
}

// lineRef returns the ref a line of cairn's summary begins with, after
// optional whitespace and "- ": "7.12" of "- 7.12 Bash …", "7" of "7: …";
// "" when the line begins with none, or with a range ("7.3-7.9 …"), which
// stands for many steps and holds none of them.
func lineRef(line string) string {
	s := strings.TrimLeft(line, " \t")
	s = strings.TrimLeft(strings.TrimPrefix(s, "- "), " \t")
	i := digits(s, 0)
	if i == 0 {
		return ""
	}
	if i < len(s) && s[i] == '.' {
		if j := digits(s, i+1); j > i+1 {
			i = j
		}
	}
	if i < len(s) && (s[i] == ' ' || s[i] == ':') {
		return s[:i]
	}
	return ""
}

func digits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// hop records an entry that names ref with an expansion of n tokens,
// keeping the smallest.
func (v *Variant) hop(ref string, n int64) {
	if old, ok := v.Hops[ref]; !ok || n < old {
		v.Hops[ref] = n
	}
}

// roundTokens is what inject prints for a whole round, estimated.
func roundTokens(r *cairn.Round) int64 {
	var n int64
	for _, b := range r.Blocks {
		if !b.Sidechain && b.Kind != cairn.CompactionBlock {
			n += cairn.BlockTokens(b)
		}
	}
	return n
}

// StepRefs returns the refs of every step of rounds ("7.12"), in order.
func StepRefs(rounds []*cairn.Round) []string {
	var out []string
	for _, r := range rounds {
		for _, st := range cairn.Steps(r.Blocks, r.LastLine) {
			out = append(out, stepRef(st))
		}
	}
	return out
}

func stepRef(st *cairn.Step) string { return fmt.Sprintf("%d.%d", st.RoundSeq, st.Seq) }

func key(session string, seq int) string { return fmt.Sprintf("%s/%d", session, seq) }
