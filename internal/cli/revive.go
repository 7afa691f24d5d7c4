package cli

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/surgery"
)

func (m *Main) runRevive(ctx context.Context, args []string) error {
	var f surgeryFlags
	fs := m.newFlagSet("revive", "[flags] SESSION", `
Give a session's work to a fresh agent: compress, export a session, and
print the command that resumes it. --to picks the harness that continues it
(default: the session's own): a Claude Code session continues in Codex with
--to codex, a Codex session in Claude Code with --to claude, any of them in
Gemini CLI with --to gemini or in opencode with --to opencode, and a Gemini
CLI or opencode session in the others; shell commands, file reads, edits
and writes become the other harness's tool calls, other calls
become text saying what was called and what it returned, and thinking, which
cannot cross, is dropped and counted. --before T compresses the
rounds before T (a round number or a time); --engagement ID collapses that
finished engagement; --frames collapses finished frames as
compress-frames does, within revive's budget (the hooks offer it when
finished frames hold a quarter of the context). With none, the budget
decides, oldest first: the recent steps stay in full and the rest becomes
the index. The session always fits the budget (see Size below), and that
budget alone: it is lighter than what the client loads today only when
that is over the budget (a session compacted just before it ended loads
as a small remnant, which is no ceiling). In a long autonomous round, the
prompt and the recent steps stay in full. Work before the first typed
prompt (a resumed or forked file's) is round 0, carried like any round
(cairn inject SESSION 0.12 prints its step 12). Its lineage is revive.

  cairn revive 5c0375b4
  cairn revive --before 40 5c0375b4
  cairn revive --engagement console-work 5c0375b4
  cairn revive --frames 5c0375b4
  cairn revive --to codex 5c0375b4
  cairn revive --to gemini 5c0375b4
`+surgeryFormats)
	f.register(fs, "")
	to := fs.String("to", "", "the harness that continues the session: claude | codex | gemini | opencode | pi (default: its own)")
	before := fs.String("before", "", "compress the rounds before this round number or time")
	engagement := fs.String("engagement", "", "compress this engagement's rounds")
	frames := fs.Bool("frames", false, "collapse finished frames to their results (as compress-frames)")
	pos, err := positional(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		fs.Usage()
		return usageError("revive takes one SESSION")
	}
	if *before != "" && *engagement != "" || *frames && (*before != "" || *engagement != "") {
		return usageError("give one of --before, --engagement and --frames")
	}
	switch *to {
	case "":
	case "claude", "claude-code", "codex", "gemini", "opencode", "pi":
		if f.format != "" && f.format != strings.TrimSuffix(*to, "-code") {
			return usageError("give --to or --format, not both")
		}
		f.format = strings.TrimSuffix(*to, "-code")
	default:
		return usageError("--to must be claude, codex, gemini, opencode or pi, got %q", *to)
	}
	own := f.format == ""
	if own {
		f.format = "claude"
	}
	fid, err := f.parse()
	if err != nil {
		return err
	}
	if f.budget == "0" {
		return usageError("revive always fits a budget: give --budget TOKENS, or leave it out for the default (%s)", surgery.BudgetRule)
	}
	st, err := m.openStore(f.store)
	if err != nil {
		return err
	}
	defer st.Close()
	if own {
		// The session continues in its own harness, whose client the
		// budget counts.
		s, err := st.sessions.FindSessionByID(ctx, pos[0])
		if err != nil {
			return err
		}
		switch s.Agent {
		case cairn.AgentCodex:
			f.format = "codex"
		case cairn.AgentOpencode:
			f.format = "opencode"
		case cairn.AgentGemini:
			f.format = "gemini"
		case cairn.AgentPi:
			f.format = "pi"
		}
	}
	limits, err := f.limits()
	if err != nil {
		return err
	}
	if limits.Budget == 0 {
		return usageError("revive always fits a budget: give --budget TOKENS, or leave it out for the default (%s)", surgery.BudgetRule)
	}
	sst := st.surgery()
	sst.LinesOnly = f.native()
	sst.Limits = limits
	var mat *cairn.Materialization
	if *frames {
		var all []*cairn.Frame
		if all, err = st.frames.FindFrames(ctx); err != nil {
			return err
		}
		mat, err = surgery.ReviveFrames(ctx, sst, pos[0], all, fid)
	} else {
		mat, err = surgery.Revive(ctx, sst, pos[0], *before, *engagement, fid)
	}
	if err != nil {
		return err
	}
	return m.emit(ctx, st, &f, []*cairn.Materialization{mat})
}
