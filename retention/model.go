package retention

import (
	"context"
	"fmt"
	"strings"
)

// An Asker puts a question to a model that reads context first, and
// returns its answer.
type Asker interface {
	Ask(ctx context.Context, context, question string) (string, error)
}

// Ask judges probes by asking a model: a probe is answered when the model's
// reply, folded, holds the probe's answer. The judge is this rule, never a
// second model. The score has no lenient side and no reach. At most limit probes are asked (0: all), spread evenly over
// the list so every category is sampled.
func Ask(ctx context.Context, a Asker, probes []*Probe, v *Variant, limit int) (*Score, error) {
	s := newScore(v)
	s.HopLimit, s.Note = 0, ""
	for _, p := range sample(probes, limit) {
		reply, err := a.Ask(ctx, v.Text, p.Question)
		if err != nil {
			return nil, fmt.Errorf("%s, probe %s: %w", v.Name, p.Ref(), err)
		}
		verdict := Lost
		if strings.Contains(fold(reply), fold(p.Answer)) {
			verdict = InContext
		}
		s.Strict.add(verdict)
		s.ByCategory[p.Category].Strict.add(verdict)
	}
	return s, nil
}

func sample(probes []*Probe, limit int) []*Probe {
	if limit <= 0 || len(probes) <= limit {
		return probes
	}
	out := make([]*Probe, 0, limit)
	for i := 0; i < limit; i++ {
		out = append(out, probes[i*len(probes)/limit])
	}
	return out
}
