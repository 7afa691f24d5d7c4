package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runCompressBefore(ctx context.Context, args []string) error {
	return m.runSurgical(ctx, args, surgicalCommand{
		name: "compress-before", synopsis: "SESSION T", help: `
Replace the rounds before T by one index table (a line per round) and keep
the rounds at or after T in full. T is a round number (12) or a time
(2026-03-19T10:23Z). The store is only read; --format claude writes a new
session and prints the command that resumes it.

Examples:
  cairn compress-before 5c0375b4 12
  cairn compress-before --format markdown 5c0375b4 2026-03-19T10:23Z | less
`,
		prepare: func(arg string) (any, error) { return surgery.ParsePoint(arg) },
		run: func(ctx context.Context, st surgery.Store, session string, at any, fid cairn.Fidelity) ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, st, session, at.(surgery.Point), fid))
		},
	})
}
