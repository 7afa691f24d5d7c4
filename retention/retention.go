package retention

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// A Variant is one materialization of a session as the client would load
// it: the text it sends, what that costs, and which rounds and steps it
// names so that one inject brings them back.
type Variant struct {
	Name   string
	Tokens int
	Text   string
	// Named holds the refs ("7", a round's index line; "7.12", a step's)
	// the variant names without holding them.
	Named map[string]bool
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

// A Score is one variant's retention: overall and by category.
type Score struct {
	Variant    string              `json:"variant"`
	Tokens     int                 `json:"tokens"`
	All        Count               `json:"all"`
	ByCategory map[Category]*Count `json:"by_category"`
	// Lost lists, for a person reading why, the refs of lost probes.
	Lost []string `json:"lost_refs,omitempty"`
}

// Judge returns where p stands in v.
func Judge(p *Probe, v *Variant, folded string) Verdict {
	if contains(folded, fold(p.Answer)) {
		return InContext
	}
	if v.Named[p.Ref()] || v.Named[fmt.Sprint(p.Round)] {
		return OneHop
	}
	return Lost
}

// Measure judges every probe in v.
func Measure(probes []*Probe, v *Variant) *Score {
	s := &Score{Variant: v.Name, Tokens: v.Tokens, ByCategory: map[Category]*Count{}}
	for _, c := range Categories {
		s.ByCategory[c] = &Count{}
	}
	folded := fold(v.Text)
	for _, p := range probes {
		verdict := Judge(p, v, folded)
		s.All.add(verdict)
		s.ByCategory[p.Category].add(verdict)
		if verdict == Lost && len(s.Lost) < 20 {
			s.Lost = append(s.Lost, string(p.Category)+"@"+p.Ref())
		}
	}
	return s
}

func contains(folded, answer string) bool { return strings.Contains(folded, answer) }

// fold lowercases s and collapses its whitespace, so that a probe matches
// text that was re-wrapped or re-cased.
func fold(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// Table writes scores for people: a row a variant, tokens, the three
// verdicts overall, then in context + one hop by category.
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
	fmt.Fprint(tw, "VARIANT\tTOKENS\tIN CONTEXT\tONE HOP\tLOST\t")
	for _, c := range Categories {
		fmt.Fprintf(tw, "%s\t", strings.ToUpper(string(c)))
	}
	fmt.Fprintln(tw)
	for _, s := range scores {
		fmt.Fprintf(tw, "%s\t%d\t%.0f%%\t%.0f%%\t%.0f%%\t", s.Variant, s.Tokens, s.All.Pct(s.All.InContext), s.All.Pct(s.All.OneHop), s.All.Pct(s.All.Lost))
		for _, c := range Categories {
			n := s.ByCategory[c]
			if n.Probes == 0 {
				fmt.Fprint(tw, "–\t")
				continue
			}
			fmt.Fprintf(tw, "%.0f%%\t", n.Pct(n.InContext+n.OneHop))
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "Categories show in context + one hop. One hop: an index line names the round or step; `cairn inject` brings it back.")
	return err
}
