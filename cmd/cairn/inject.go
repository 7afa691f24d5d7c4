package main

import (
	"context"
	"strconv"
	"strings"

	"cairn"
	"cairn/surgery"
)

func (m *Main) runInject(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("inject", "[flags] SESSION ROUND[.STEP]", `
Print one round in full from the store: the round number is the first column
of any index table. ROUND.STEP prints one step of it (an assistant turn with
its tool calls and their results), as the step index lines of a long round
number them. A read: nothing changes. Printed (markdown, json) it has no
budget unless --budget is given; written as a session to resume (claude,
codex) it fits the default budget, as every other operation does.

Examples:
  cairn inject 5c0375b4 47
  cairn inject 5c0375b4 1.212
  cairn inject --fidelity thinking=omit 5c0375b4 47
`+surgeryFormats)
	f.register(fs, "markdown")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		fs.Usage()
		return usageError("inject takes SESSION and ROUND")
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	roundArg, stepArg, hasStep := strings.Cut(pos[1], ".")
	seq, err := strconv.Atoi(roundArg)
	step := 0
	if err == nil && hasStep {
		step, err = strconv.Atoi(stepArg)
		if step < 1 {
			err = strconv.ErrRange
		}
	}
	if err != nil || seq < 0 {
		return usageError("ROUND must be a round number or ROUND.STEP (7 or 7.12), got %q", pos[1])
	}
	if f.budget == "" && (f.format == "markdown" || f.format == "json") {
		f.budget = "0" // a read; a session to resume fits the default budget
	}
	limits, err := f.limits()
	if err != nil {
		return err
	}
	st, err := m.readStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sst := st.surgery()
	sst.Limits = limits
	var mat *cairn.Materialization
	if hasStep {
		mat, err = surgery.InjectStep(ctx, sst, pos[0], seq, step, fid)
	} else {
		mat, err = surgery.Inject(ctx, sst, pos[0], seq, fid)
	}
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
