package retention

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A Variant is one way of continuing a session as the client would load
// it: the text it sends, what that costs, and, for the strict judge, what
// of that text belongs to which step and which entries name which steps.
type Variant struct {
	Name   string
	Tokens int
	// Text is everything the client loads, the lenient judge's haystack.
	Text string
	// Named holds the refs ("7", a round; "7.12", a step) the variant
	// names in any way, whatever inject would print for them: the lenient
	// judge's one hop.
	Named map[string]bool

	// Steps holds, by ref ("7.12", or "7" for round 7's prompt), the text
	// the output holds for that step: its blocks as kept in full, and the
	// lines of cairn's summary that begin with its ref.
	Steps map[string]string
	// Full holds the refs of the steps the output keeps in full.
	Full map[string]bool
	// Hops holds, by ref, the smallest expansion (estimated tokens inject
	// prints) among the output's entries that name the step or round.
	Hops map[string]int64
	// HopLimit is the largest expansion a hop may have: half the budget
	// ([surgery.HopLimit]), so output and expansion stay within three
	// quarters of the window at the default budget.
	HopLimit int64
	// Note says, for a person reading the figures, what the strict judge
	// could not see in this variant.
	Note string
}

// Verdict is where a probe stands in a variant.
type Verdict string

// The verdicts.
const (
	InContext Verdict = "in-context"
	OneHop    Verdict = "one-hop"
	Lost      Verdict = "lost"
)

// A Count is how many probes of a kind got each verdict.
type Count struct {
	Probes    int `json:"probes"`
	InContext int `json:"in_context"`
	OneHop    int `json:"one_hop"`
	Lost      int `json:"lost"`
}

func (c *Count) add(v Verdict) {
	c.Probes++
	switch v {
	case InContext:
		c.InContext++
	case OneHop:
		c.OneHop++
	default:
		c.Lost++
	}
}

// Pct returns n as a percentage of the count's probes (0 when none).
func (c Count) Pct(n int) float64 {
	if c.Probes == 0 {
		return 0
	}
	return 100 * float64(n) / float64(c.Probes)
}

// Kept returns the percentage in context or one hop.
func (c Count) Kept() float64 { return c.Pct(c.InContext + c.OneHop) }

// A Judged is a category's count under both judges.
type Judged struct {
	Strict  Count `json:"strict"`
	Lenient Count `json:"lenient"`
}

// A Score is one variant's retention: overall and by category, judged
// strictly and leniently, and how many of the session's steps it reaches.
type Score struct {
	Variant  string `json:"variant"`
	Tokens   int    `json:"tokens"`
	HopLimit int64  `json:"hop_limit"`
	// Strict and Lenient count every probe; a model-judged score (see
	// [Ask]) has only Strict, the model's answers.
	Strict     Count                `json:"strict"`
	Lenient    Count                `json:"lenient"`
	ByCategory map[Category]*Judged `json:"by_category"`
	// Steps is the session's steps, Reachable those the variant keeps in
	// full or names with an entry whose expansion fits HopLimit.
	Steps     int `json:"steps"`
	Reachable int `json:"reachable"`
	// Continues reports whether every continuation probe is in context,
	// strictly: the todo list and the last answer the agent picks up from.
	Continues bool   `json:"continues"`
	Note      string `json:"note,omitempty"`
	// Lost lists, for a person reading why, the refs of probes lost
	// strictly.
	Lost []string `json:"lost_refs,omitempty"`
}

func newScore(v *Variant) *Score {
	s := &Score{Variant: v.Name, Tokens: v.Tokens, HopLimit: v.HopLimit, Note: v.Note, ByCategory: map[Category]*Judged{}}
	for _, c := range Categories {
		s.ByCategory[c] = &Judged{}
	}
	return s
}

// Judge returns where p stands in v strictly: in context when its answer
// is in the text v holds for p's own step (and in what the client loads);
// one hop when an entry names the step and its expansion fits v.HopLimit.
// folded is fold(v.Text).
func Judge(p *Probe, v *Variant, folded string) Verdict {
	answer := fold(p.Answer)
	if t, ok := v.Steps[p.Ref()]; ok && strings.Contains(fold(t), answer) && strings.Contains(folded, answer) {
		return InContext
	}
	if n, ok := v.Hops[p.Ref()]; ok && n <= v.HopLimit {
		return OneHop
	}
	return Lost
}

// JudgeLenient returns where p stands in v as the first versions of the
// eval judged: in context when its answer is anywhere in the text, one hop
// when anything names its round or step.
func JudgeLenient(p *Probe, v *Variant, folded string) Verdict {
	if strings.Contains(folded, fold(p.Answer)) {
		return InContext
	}
	if v.Named[p.Ref()] || v.Named[fmt.Sprint(p.Round)] {
		return OneHop
	}
	return Lost
}

// Measure judges every probe in v, both ways. steps are the refs of the
// session's steps ([StepRefs]), for the reach.
func Measure(probes []*Probe, steps []string, v *Variant) *Score {
	s := newScore(v)
	folded := fold(v.Text)
	cont := 0
	for _, p := range probes {
		strict, lenient := Judge(p, v, folded), JudgeLenient(p, v, folded)
		s.Strict.add(strict)
		s.Lenient.add(lenient)
		j := s.ByCategory[p.Category]
		j.Strict.add(strict)
		j.Lenient.add(lenient)
		if p.Category == Continuation {
			cont++
		}
		if strict == Lost && len(s.Lost) < 20 {
			s.Lost = append(s.Lost, string(p.Category)+"@"+p.Ref())
		}
	}
	c := s.ByCategory[Continuation].Strict
	s.Continues = cont > 0 && c.InContext == cont
	s.Steps = len(steps)
	for _, ref := range steps {
		if n, ok := v.Hops[ref]; v.Full[ref] || ok && n <= v.HopLimit {
			s.Reachable++
		}
	}
	return s
}

// fold lowercases s and collapses its whitespace, so that a probe matches
// text that was re-wrapped or re-cased.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Table writes scores for people: a row a variant; its tokens; strictly,
// the three verdicts; then by category in context + one hop, strict/lenient;
// the steps it reaches and whether the continuation is in context.
func Table(w io.Writer, probes []*Probe, scores []*Score) error {
	counts := map[Category]int{}
	for _, p := range probes {
		counts[p.Category]++
	}
	fmt.Fprintf(w, "%d probes:", len(probes))
	for _, c := range Categories {
		fmt.Fprintf(w, " %s %d", c, counts[c])
	}
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "VARIANT\tTOKENS\tIN CONTEXT\tONE HOP\tLOST\tALL\t")
	for _, c := range Categories {
		fmt.Fprintf(tw, "%s\t", strings.ToUpper(string(c)))
	}
	fmt.Fprint(tw, "REACHABLE\tCONTINUES\t\n")
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t%.0f%%\t%.0f%%\t%s\t", s.Variant, s.Tokens, s.Strict.Pct(s.Strict.InContext), s.Strict.Pct(s.Strict.OneHop), s.Strict.Pct(s.Strict.Lost), pair(s.Strict, s.Lenient))
		for _, c := range Categories {
			j := s.ByCategory[c]
			fmt.Fprintf(tw, "%s\t", pair(j.Strict, j.Lenient))
		}
		reach := "–"
		if s.Steps > 0 {
			reach = fmt.Sprintf("%.0f%%", 100*float64(s.Reachable)/float64(s.Steps))
		}
		cont := "–"
		if n := s.ByCategory[Continuation].Strict; n.Probes > 0 {
			cont = fmt.Sprintf("%d/%d", n.InContext, n.Probes)
		}
		fmt.Fprintf(tw, "%s\t%s\t\n", reach, cont)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	hop := int64(0)
	for _, s := range scores {
		hop = max(hop, s.HopLimit)
	}
	fmt.Fprintf(w, "IN CONTEXT, ONE HOP, LOST: strict. ALL and the categories: in context + one hop, strict/lenient %%.\n")
	fmt.Fprintf(w, "Strict: in context when the answer is in its own step's text in the output; one hop when an entry names the step and inject prints at most %d tokens for it.\n", hop)
	fmt.Fprintf(w, "REACHABLE: the session's steps in full or one hop. CONTINUES: continuation probes (last todo list, last answer) in context, strictly.\n")
	for _, s := range scores {
		if s.Note != "" {
			fmt.Fprintf(w, "%s: %s\n", s.Variant, s.Note)
		}
	}
	return nil
}

// pair renders in context + one hop, strict/lenient, in percent; a
// model-judged count has no lenient side.
func pair(strict, lenient Count) string {
	if strict.Probes == 0 {
		return "–"
	}
	if lenient.Probes == 0 {
		return fmt.Sprintf("%.0f", strict.Kept())
	}
	return fmt.Sprintf("%.0f/%.0f", strict.Kept(), lenient.Kept())
}
