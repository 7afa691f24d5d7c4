package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runMerge(ctx context.Context, args []string) error {
	return m.runSurgical(ctx, args, surgicalCommand{
		name: "merge", synopsis: "SESSION1 SESSION2", help: `
Interleave the rounds of two sessions by time, all in full. Every round keeps
its provenance: the summary the agent reads first lists which session each
round came from (A or B), and every line carries cairnSource. Conflicts are
not resolved: that is the reading agent's work.

Example:
  cairn merge 5c0375b4 9a1e22f0 --cwd ~/src/console
`,
		run: func(ctx context.Context, st surgery.Store, first string, second any, fid cairn.Fidelity) ([]*cairn.Materialization, error) {
			return one(surgery.Merge(ctx, st, first, second.(string), fid))
		},
	})
}
