package cli

import (
	"context"
	"os"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runSplit(ctx context.Context, args []string) error {
	return m.runSurgical(ctx, args, surgicalCommand{
		name: "split", synopsis: "SESSION MAP", help: `
Fork a session into one child per engagement: the shared rounds as an index
in every child, each engagement's rounds in full in its own. Each child
records the session as its parent.

MAP is ranges (1-15=shared,16-25=console,26-30=inscription), a JSON file
({"shared": "1-15", "console": "16-25"}), or "tags" to split by the stored
tags (untagged rounds are shared).

Examples:
  cairn split 5c0375b4 1-15=shared,16-25=console,26-30=inscription
  cairn split --format markdown 5c0375b4 tags
`,
		prepare: func(spec string) (any, error) {
			if spec == "tags" {
				return surgery.SplitMap(nil), nil
			}
			if strings.HasSuffix(spec, ".json") {
				buf, err := os.ReadFile(spec)
				if err != nil {
					return nil, err
				}
				spec = string(buf)
			}
			return surgery.ParseSplitMap(spec)
		},
		run: func(ctx context.Context, st surgery.Store, session string, sm any, fid cairn.Fidelity) ([]*cairn.Materialization, error) {
			return surgery.Split(ctx, st, session, sm.(surgery.SplitMap), fid)
		},
	})
}
