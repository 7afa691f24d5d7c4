package cli

import "context"

func (m *Main) runActivate(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("activate", "[flags] FRAME", `
Start a planned frame, or resume a blocked one; it becomes your current
frame. Planned ancestors start with it. To take whichever frame is ready
without racing other agents, use "cairn ready --claim".

Examples:
  cairn activate crud
  cairn activate deploy --as agent-2`)
	ff.register(m, fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("activate takes one FRAME")
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := st.stack().Activate(ctx, fs.Arg(0), ff.owner)
	if err != nil {
		return err
	}
	return m.printChange(ff.json, "activated", c)
}
