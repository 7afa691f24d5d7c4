package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runExtractEngagement(ctx context.Context, args []string) error {
	return m.runSurgical(ctx, args, surgicalCommand{
		name: "extract-engagement", synopsis: "SESSION ENGAGEMENT", help: `
Write only the rounds tagged ENGAGEMENT, in full: a session to hand one
workstream to a dedicated agent.

Example:
  cairn extract-engagement 5c0375b4 console-work
`,
		run: func(ctx context.Context, st surgery.Store, session string, id any, fid cairn.Fidelity) ([]*cairn.Materialization, error) {
			return one(surgery.ExtractEngagement(ctx, st, session, id.(string), fid))
		},
	})
}
