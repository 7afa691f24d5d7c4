package cli

import "context"

func (m *Main) runInvalidate(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("invalidate", "[flags] FRAME", `
Mark a frame no longer relevant. Its planned descendants are invalidated
with it; descendants in progress or blocked are left alone, with a warning,
because someone is working on them. Nothing is deleted: the frame and its
log stay in the store.

Examples:
  cairn invalidate crud-graphql
  cairn invalidate api --json`)
	ff.register(m, fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("invalidate takes one FRAME")
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := st.stack().Invalidate(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	return m.printChange(ff.json, "invalidated", c)
}
