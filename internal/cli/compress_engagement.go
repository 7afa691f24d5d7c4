package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runCompressEngagement(ctx context.Context, args []string) error {
	return m.runSurgical(ctx, args, surgicalCommand{
		name: "compress-engagement", synopsis: "SESSION ENGAGEMENT", help: `
Collapse the rounds tagged ENGAGEMENT (a finished workstream) to their index
lines; every other round stays in full. Tag rounds with "cairn tag".

Example:
  cairn compress-engagement 5c0375b4 console-work
`,
		run: func(ctx context.Context, st surgery.Store, session string, id any, fid cairn.Fidelity) ([]*cairn.Materialization, error) {
			return one(surgery.CompressEngagement(ctx, st, session, id.(string), fid))
		},
	})
}
