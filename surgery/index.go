package surgery

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
)

// The layered index: every step an output leaves out is named by an
// entry that `cairn inject SESSION REF` expands, one command away, so no
// step is ever out of reach whatever the budget. Rounds shown as one row
// of the index table carry their steps too. Where one line a step does not
// fit the index's share of the budget, the oldest steps are named in runs
// (7.3-7.9, what they touched), each run no larger than a quarter of the
// budget ([RunLimit]) so that two fit beside the output; a row alone
// stands for a round that small.

// HopLimit is the most an index entry's expansion may hold and still count
// as one command away: half the budget, so that the output and what the
// agent brings back stay within one and a half budgets (three quarters of
// the window at the default budget). A step larger than that is named by
// its own line, and the ledger keeps what it ran and met.
func HopLimit(budget int64) int64 { return budget / 2 }

// RunLimit is the most a run of steps holds: a quarter of the budget.
func RunLimit(budget int64) int64 { return budget / 4 }

// runTokens is what a run's line is counted while the layout is searched:
// about what one costs (its exact cost once built).
const runTokens = 45

// indexShare is the part of the conversation's budget (the budget less
// the client's overhead) the index gets before the recent steps: what it
// takes beyond its coarsest form is spent on one line a step.
const indexShare = 4 // a quarter

// ledgerShareOf is the part of the conversation's budget the ledger gets.
const ledgerShare = 5 // a fifth

// A unit is one step on its way into the index.
type unit struct {
	pl    *plan
	entry cairn.IndexEntry // the step's own entry: its line and expansion
	cost  int64            // its line's tokens
	step  *cairn.Step
	fine  bool // always a line of its own ([BeforeIndex])
}

// indexUnits lists, per plan in order, the steps its level leaves out;
// those before the client's compaction are fine when preFine.
func indexUnits(plans []*plan, preFine bool) [][]unit {
	out := make([][]unit, len(plans))
	for i, pl := range plans {
		if pl.level == levelDropped {
			continue // a run of rounds names it
		}
		var entries []cairn.IndexEntry
		var steps []*cairn.Step
		var costs []int64
		entries, steps, costs = append(entries, pl.pre...), append(steps, pl.preSteps...), append(costs, pl.preIdx...)
		n := 0
		switch pl.level {
		case levelIndex:
			n = len(pl.lines)
		case levelSteps:
			n = max(len(pl.lines)-1, 0)
		case levelFull:
			n = pl.keepFrom
		}
		entries, steps, costs = append(entries, pl.lines[:n]...), append(steps, pl.steps[:n]...), append(costs, pl.idx[:n]...)
		for j := range entries {
			out[i] = append(out[i], unit{pl: pl, entry: entries[j], cost: costs[j], step: steps[j], fine: preFine && j < len(pl.pre)})
		}
	}
	return out
}

// buildIndex names every unit within share tokens if it can: one line a
// step for the newest, runs of up to g steps for the oldest k, the
// smallest g and k that fit; over share only when even the coarsest runs
// do not fit, which the caller has reserved. It returns the entries per
// plan and their cost.
func buildIndex(units [][]unit, share, runLimit int64) ([][]cairn.IndexEntry, int64) {
	total := 0
	for _, us := range units {
		total += len(us)
	}
	for _, g := range []int{1, 2, 4, 8, 16, 32, 64, 1 << 30} {
		if _, c := layIndex(units, g, total, runLimit, false); c > share && g < 1<<30 {
			continue
		}
		k := sort.Search(total+1, func(k int) bool { _, c := layIndex(units, g, k, runLimit, false); return c <= share })
		if k > total {
			k = total
		}
		return layIndex(units, g, k, runLimit, true)
	}
	panic("unreachable")
}

// layIndex names the first k units (oldest first) in runs of at most g
// steps and runLimit tokens within a round, the rest one line each. At the
// coarsest (g unbounded, every unit run), a round shown as a row whose
// whole expansion fits runLimit needs no line: its row names it.
//
// Unless build, runs are only counted, at [runTokens] a line.
func layIndex(units [][]unit, g, k int, runLimit int64, build bool) ([][]cairn.IndexEntry, int64) {
	out := make([][]cairn.IndexEntry, len(units))
	var cost int64
	seen := 0
	for i, us := range units {
		if len(us) == 0 {
			continue
		}
		pl := us[0].pl
		if g == 1<<30 && seen+len(us) <= k && pl.level == levelIndex && pl.roundTok <= runLimit && !us[0].fine {
			seen += len(us)
			continue
		}
		for j := 0; j < len(us); {
			if seen >= k || g == 1 || us[j].fine {
				out[i] = append(out[i], us[j].entry)
				cost += us[j].cost
				j, seen = j+1, seen+1
				continue
			}
			e := j + 1
			tok := us[j].entry.Tokens
			for e < len(us) && e-j < g && seen+(e-j) < k && !us[e].fine && tok+us[e].entry.Tokens <= runLimit {
				tok += us[e].entry.Tokens
				e++
			}
			switch {
			case e-j == 1:
				out[i] = append(out[i], us[j].entry)
				cost += us[j].cost
			case build:
				run := runEntry(us[j:e])
				out[i] = append(out[i], run)
				cost += cairn.EstimateTokens(run.Line) + 2
			default:
				cost += runTokens
			}
			seen += e - j
			j = e
		}
	}
	return out, cost
}

// runEntry is the entry of a run of steps of one round: where it is, how
// big, and what it touched.
//
//	3.12-3.20 · 9 steps · ~7k tokens: Write pkg/a.go, b.go · Bash ×4 (`go test ./...`, `grep -n foo`) · Read ×3 · 1 error | "Tests pass now."
func runEntry(us []unit) cairn.IndexEntry {
	first, last := us[0].step, us[len(us)-1].step
	var tok int64
	counts := map[string]int{}
	var tools, files, cmds []string
	errs := 0
	text := ""
	var fileTool, cmdTool string // the first tool that wrote files, that ran a command
	for _, u := range us {
		tok += u.entry.Tokens
		inputs := map[string]string{} // tool id → the call's input
		for _, b := range u.step.Blocks {
			if b.Kind == cairn.ToolUse {
				inputs[b.ToolID] = b.Content
			}
		}
		for _, c := range u.step.Calls {
			if counts[c.Tool] == 0 {
				tools = append(tools, c.Tool)
			}
			counts[c.Tool]++
			if c.IsError {
				errs++
			}
			if written := cairn.FilesWritten(u.pl.agent, c.Tool, inputs[c.ID()]); len(written) > 0 {
				for _, p := range written {
					if f := path.Base(p); !slices.Contains(files, f) {
						files = append(files, f)
					}
				}
				fileTool = cmp.Or(fileTool, c.Tool)
			} else if cairn.ShellTool(u.pl.agent, c.Tool) && c.Arg != "" {
				if cmd := oneLine(c.Arg, 40); !slices.Contains(cmds, cmd) {
					cmds = append(cmds, cmd)
				}
				cmdTool = cmp.Or(cmdTool, c.Tool)
			}
		}
		if u.step.Text != "" {
			text = u.step.Text
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d.%d-%d.%d · %d steps · ~%s tokens:", first.RoundSeq, first.Seq, last.RoundSeq, last.Seq, len(us), kilo(tok))
	for i, t := range tools {
		if i > 0 {
			b.WriteString(" ·")
		}
		fmt.Fprintf(&b, " %s", t)
		if counts[t] > 1 {
			fmt.Fprintf(&b, " ×%d", counts[t])
		}
		if t == fileTool {
			b.WriteString(" " + list(files, 4))
		}
		if t == cmdTool {
			b.WriteString(" (`" + strings.Join(cmds[:min(len(cmds), 2)], "`, `") + "`")
			if len(cmds) > 2 {
				fmt.Fprintf(&b, " +%d", len(cmds)-2)
			}
			b.WriteString(")")
		}
	}
	if errs > 0 {
		fmt.Fprintf(&b, " · %d error", errs)
		if errs > 1 {
			b.WriteString("s")
		}
	}
	if text != "" {
		b.WriteString(` | "` + strings.ReplaceAll(oneLine(text, 60), `"`, `'`) + `"`)
	}
	return cairn.IndexEntry{Round: first.RoundSeq, From: first.Seq, To: last.Seq, Line: b.String(), Tokens: tok}
}

func list(xs []string, n int) string {
	s := strings.Join(xs[:min(len(xs), n)], ", ")
	if len(xs) > n {
		s += fmt.Sprintf(" +%d", len(xs)-n)
	}
	return s
}

// kilo renders tokens as "850" or "12k".
func kilo(n int64) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	return fmt.Sprintf("%dk", (n+500)/1000)
}

// roundRun is how many rounds a run of rounds names at most, and
// runLineTokens what its line costs.
const (
	roundRun      = 25
	runLineTokens = 60
)

// roundRunEntry names a run of consecutive rounds: their span, their
// steps and size, the first and last prompts.
func roundRunEntry(run []*cairn.Round) cairn.IndexEntry {
	first, last := run[0], run[len(run)-1]
	line := fmt.Sprintf("rounds %d-%d · %s – %s · %q … %q", first.Seq, last.Seq,
		first.StartedAt.UTC().Format(export.IndexTimeFormat), last.EndedAt.UTC().Format(export.IndexTimeFormat),
		oneLine(first.UserPreview, 60), oneLine(last.UserPreview, 60))
	return cairn.IndexEntry{Round: first.Seq, Through: last.Seq, Line: line}
}
