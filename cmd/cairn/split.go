package main

import (
	"context"
	"os"
	"strings"

	"cairn/surgery"
)

func (m *Main) runSplit(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("split", "[flags] SESSION MAP", `
Fork a session into one child per engagement: the shared rounds as an index
in every child, each engagement's rounds in full in its own. Each child
records the session as its parent.

MAP is ranges (1-15=shared,16-25=console,26-30=inscription), a JSON file
({"shared": "1-15", "console": "16-25"}), or "tags" to split by the stored
tags (untagged rounds are shared).

Examples:
  cairn split 5c0375b4 1-15=shared,16-25=console,26-30=inscription
  cairn split --format markdown 5c0375b4 tags
`+surgeryFormats)
	f.register(fs, "claude")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("split takes SESSION and MAP")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	var sm surgery.SplitMap
	if spec := pos[1]; spec != "tags" {
		if strings.HasSuffix(spec, ".json") {
			buf, err := os.ReadFile(spec)
			if err != nil {
				return err
			}
			spec = string(buf)
		}
		if sm, err = surgery.ParseSplitMap(spec); err != nil {
			return err
		}
	}
	st, err := m.openStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	ms, err := surgery.Split(ctx, st.surgery(), pos[0], sm, fid)
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, ms)
}
