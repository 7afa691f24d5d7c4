package surgery

import (
	"context"
	"slices"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
)

// Limits bound what an operation writes.
type Limits struct {
	// Budget is the most tokens the client may send for the output (see
	// [Estimate]). 0: no budget, every round the operation chose stays as it
	// chose it. [AutoBudget]: half the window of the session's model.
	Budget int64
	// BeforeCompaction is what a kept round keeps of its content before the
	// client's last compaction: [BeforeSummary] (""), [BeforeIndex] or
	// [BeforeFull].
	BeforeCompaction string
	// Client is the harness that resumes the output: [cairn.AgentCodex],
	// [cairn.AgentOpencode], [cairn.AgentGemini], or
	// Claude Code ("" or [cairn.AgentClaudeCode]). Its own overhead (system
	// prompt, tools) is part of every estimate: Codex sends far less than
	// Claude Code, so a budget fitted with the wrong one is mostly wasted,
	// or refused outright when it is under Claude Code's.
	Client string
}

// AutoBudget asks for the default budget: half the session's model window.
const AutoBudget = -1

// Levels a round degrades through to fit a budget, oldest round first.
const (
	levelFull    = iota // at the materialization's fidelity
	levelPartial        // thinking referenced, tools summarized
	levelSteps          // prompt, last step in full, an index line per other step
	levelIndex          // one line of the index table
	levelDropped        // not even in the table (counted)
)

// A plan is one piece on its way through the fit.
type plan struct {
	p      *cairn.Piece
	agent  string // the harness of the round's session
	loaded bool
	level  int
	last   bool // the last full piece: it holds the latest prompt and the last answer

	prompt             cairn.LineRange // From > To: none
	promptTok, promptP int64
	steps              []*cairn.Step      // the steps that may be kept (after the client's compaction)
	full, partial, idx []int64            // per step: tokens in full, in partial, as an index line
	lines              []cairn.IndexEntry // per step: its index entry
	keepFrom           int                // the last piece: the first step kept in full
	pre                []cairn.IndexEntry // entries of the steps before the client's compaction, which the output leaves out
	preSteps           []*cairn.Step
	preIdx             []int64
	roundTok           int64              // the whole round in full: what inject of it prints
	index              []cairn.IndexEntry // what the layered index names of it
	extra              int64              // the client's summary
	row                int64              // tokens of its index row
	comp               *cairn.Compaction
	opKeep             []cairn.LineRange // what the operation itself kept (inject of a step)
}

// listLineTokens is what a round in full costs in the summary's list.
const listLineTokens = 30

func (pl *plan) cost() int64 {
	switch pl.level {
	case levelDropped:
		return 0
	case levelIndex:
		return pl.row
	case levelPartial:
		return listLineTokens + pl.extra + pl.promptP + sum(pl.partial)
	case levelSteps:
		n := len(pl.steps)
		if n == 0 {
			return listLineTokens + pl.extra + pl.promptTok
		}
		return listLineTokens + pl.extra + pl.promptTok + pl.full[n-1]
	}
	return listLineTokens + pl.extra + pl.promptTok + sum(pl.full[pl.keepFrom:])
}

// minCost is the least the piece can cost: the latest round its prompt and
// last step, any other its row.
func (pl *plan) minCost() int64 {
	if !pl.last {
		return pl.row
	}
	c := listLineTokens + pl.extra + pl.promptTok
	if n := len(pl.steps); n > 0 {
		c += pl.full[n-1]
	}
	return c
}

func sum(xs []int64) int64 {
	var n int64
	for _, x := range xs {
		n += x
	}
	return n
}

// continues reports whether an operation's output continues its session,
// so the client's compaction in the rounds it compressed still applies:
// the others are chosen rounds the user asked for by name (an engagement,
// a merge, one round).
func continues(op string) bool {
	return op == cairn.OpCompressBefore || op == cairn.OpCompressEngagement || op == "select" || op == cairn.OpRevive || op == opResume
}

// fit decides, before any line is read, what each piece keeps: the client's
// compaction respected, then, over budget, rounds degraded oldest first
// (full → partial → steps index → index line → dropped from the table),
// never the latest prompt and the last answer. Blocks are read newest round
// first, only as far back as the budget can reach.
func (st Store) fit(ctx context.Context, m *cairn.Materialization) error {
	before, err := ParseBeforeCompaction(st.Limits.BeforeCompaction)
	if err != nil {
		return err
	}
	facts, err := st.facts(ctx, m.Sources[0])
	if err != nil {
		return err
	}
	budget := st.Limits.Budget
	if budget == AutoBudget {
		budget = DefaultBudget(facts.model)
	}
	m.Overhead, m.Budget = facts.overhead, max(budget, 0)

	plans := make([]*plan, len(m.Pieces))
	var full []*plan
	for i, p := range m.Pieces {
		plans[i] = &plan{p: p, level: levelIndex, row: rowTokens(p.Round), opKeep: p.Keep}
		if s := m.Source(p.Round.SessionID); s != nil {
			plans[i].agent = s.Agent
		}
		if p.Full {
			plans[i].level = levelFull
			full = append(full, plans[i])
		}
	}
	if len(full) == 0 {
		return cairn.Errorf(cairn.EINVALID, "Nothing stays in full.")
	}
	full[len(full)-1].last = true

	// Newest first, in doubling batches, every round is read, those shown
	// as rows too (the index names their steps, the ledger is read off
	// them), until even the least each can keep (a row, for the latest its
	// prompt and last step) fills the budget: older rounds can only be
	// runs of rounds, unread. Each batch is as many rounds as the budget
	// left could hold at the least the rounds read so far kept on average.
	var reach, rows int64 = m.Overhead, 0
	i, batch, read := len(plans)-1, 1, 0
	for i >= 0 {
		lo := 0
		if budget > 0 {
			lo = max(0, i-batch+1)
		}
		if err := st.loadBlocks(ctx, plans[lo:i+1]); err != nil {
			return err
		}
		for _, pl := range plans[lo : i+1] {
			pl.plan(m.Fidelity)
			reach += pl.minCost()
			if !pl.last {
				rows += pl.row
			}
			read++
		}
		i = lo - 1
		if avg := max((reach-m.Overhead)/int64(read), 1); budget > reach {
			batch = int(min((budget-reach)/avg+1, int64(2*read)))
		}
		if budget > 0 && (reach > budget || rows > max(budget-m.Overhead, 0)/2) {
			for _, pl := range plans[:i+1] {
				pl.level = levelDropped
			}
			break
		}
	}
	// Every operation respects the compactions inside the rounds it keeps
	// (issue 11: a kept round never brings back what the client had
	// compacted by accident); one that continues its session also carries
	// the summary of a compaction in the rounds it compressed.
	m.Compactions = nil
	for _, pl := range full {
		if pl.loaded && pl.opKeep == nil {
			cs, err := st.compactionsIn(ctx, pl.p.Round, pl.p.Round.Blocks)
			if err != nil {
				return err
			}
			m.Compactions = append(m.Compactions, cs...)
		}
	}
	if len(m.Compactions) == 0 && continues(m.Operation) {
		cs, err := st.compactionBefore(ctx, plans)
		if err != nil {
			return err
		}
		m.Compactions = cs
	}
	if before != BeforeFull {
		respectCompaction(m, full, before)
	}
	runLimit := RunLimit(budget)
	if budget <= 0 {
		runLimit = RunLimit(DefaultBudget(facts.model))
	}
	content := max(budget-budget/16-m.Overhead-summaryBaseTokens, 0)
	var items []cairn.LedgerItem
	var answers []bool
	if budget > 0 && continues(m.Operation) && m.Operation != opResume && len(m.Sources) == 1 {
		var rounds []*cairn.Round
		var steps [][]*cairn.Step
		for _, pl := range plans {
			if pl.loaded {
				rounds, steps = append(rounds, pl.p.Round), append(steps, slices.Concat(pl.preSteps, pl.steps))
			}
		}
		items, answers = ledgerItems(rounds, steps, m.Sources[0].Project, m.Sources[0].Agent)
	}
	// The index's least (every step left out named in runs, rows standing
	// for rounds that small) is reserved before the rounds degrade, with
	// its share of the budget and the ledger's; what the rounds leave goes
	// to the index too. When the latest steps leave no room for the
	// shares, they shrink, down to the index's least and no ledger.
	var all []*plan
	for _, pl := range plans {
		all = append(all, &plan{p: pl.p, agent: pl.agent, level: levelIndex, lines: slices.Concat(pl.pre, pl.lines), steps: slices.Concat(pl.preSteps, pl.steps), idx: slices.Concat(pl.preIdx, pl.idx), roundTok: pl.roundTok})
	}
	_, least := layIndex(indexUnits(all, before == BeforeIndex), 1<<30, 1<<30, runLimit, false)
	type state struct{ level, keepFrom int }
	saved := make([]state, len(plans))
	for i, pl := range plans {
		saved[i] = state{pl.level, pl.keepFrom}
	}
	// The fit works on an approximation of the summary; the exact estimate
	// decides, and a few passes with a tighter target absorb the difference.
	// A sixteenth of the budget is kept for what the client adds around the
	// new prompt (its environment, reminders), which no transcript shows.
	// div divides the ledger's and the index's shares; at 0 there is no
	// ledger, the index is at its least, and only then may the oldest rows
	// give way to runs of rounds.
	fitWith := func(div int64) error {
		for i, pl := range plans {
			pl.level, pl.keepFrom = saved[i].level, saved[i].keepFrom
		}
		m.Ledger, m.Tokens = nil, 0
		reserve := least
		if div > 0 {
			m.Ledger = pickLedger(items, answers, content/ledgerShare/div)
			reserve = max(least, content/indexShare/div) + LedgerTokens(m.Ledger)
		} else if len(items) > 0 {
			m.Ledger = pickLedger(items, answers, 0)
			reserve += LedgerTokens(m.Ledger)
		}
		target := budget - budget/16
		for pass := 0; ; pass++ {
			if budget > 0 {
				if err := degrade(m, plans, full, target-reserve, budget, div == 0); err != nil {
					if pass > 0 {
						return cairn.Errorf(cairn.EINVALID, "Does not fit in %d tokens: at least %d are needed. Give a larger --budget, or --budget 0 for none.", budget, m.Tokens)
					}
					return err
				}
			}
			share := max(target-m.Overhead-summaryBaseTokens-LedgerTokens(m.Ledger)-costOf(plans), least)
			if budget <= 0 {
				share = least // no budget to spend: rows, and runs within the run limit
			}
			if m.Operation != opResume { // what the client loads today names nothing
				index, _ := buildIndex(indexUnits(plans, before == BeforeIndex), share, runLimit)
				for i, pl := range plans {
					pl.index = index[i]
				}
			}
			apply(m, plans)
			m.Tokens = Estimate(m)
			if budget <= 0 || m.Tokens <= budget-budget/16 || pass == 4 {
				break
			}
			target -= m.Tokens - (budget - budget/16) + 32
		}
		if budget > 0 && m.Tokens > budget {
			return cairn.Errorf(cairn.EINVALID, "Does not fit in %d tokens: %d are needed. Give a larger --budget, or --budget 0 for none.", budget, m.Tokens)
		}
		return nil
	}
	for _, div := range []int64{1, 2, 4, 0} {
		if err = fitWith(div); err == nil || budget <= 0 {
			break
		}
	}
	return err
}

// compactionLookBack is how many rounds before the first kept one are
// searched for the client's last compaction, whose summary is carried.
const compactionLookBack = 32

// compactionBefore finds the client's last compaction in the index rounds
// just before the first round in full (at most [compactionLookBack] of
// them), so its summary is carried even when the round it lies in is
// compressed.
func (st Store) compactionBefore(ctx context.Context, plans []*plan) ([]*cairn.Compaction, error) {
	first := -1
	for i, pl := range plans {
		if pl.level < levelIndex && pl.loaded {
			first = i
			break
		}
	}
	if first <= 0 {
		return nil, nil
	}
	fr := plans[first].p.Round
	var prev []*cairn.Round
	for i := first - 1; i >= 0 && len(prev) < compactionLookBack; i-- {
		r := plans[i].p.Round
		if r.SessionID != fr.SessionID {
			break
		}
		prev = append(prev, r)
	}
	if len(prev) == 0 {
		return nil, nil
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: fr.SessionID, FromSeq: prev[len(prev)-1].Seq, ToSeq: prev[0].Seq, WithBlocks: true})
	if err != nil {
		return nil, err
	}
	bySeq := make(map[int]*cairn.Round, len(rounds))
	for _, r := range rounds {
		bySeq[r.Seq] = r
	}
	for _, as := range prev { // the rounds loaded: none off the path
		if r := bySeq[as.Seq]; r != nil {
			r = keepTo(r, as)
			cs, err := st.compactionsIn(ctx, r, r.Blocks)
			if err != nil || len(cs) > 0 {
				return cs, err
			}
		}
	}
	return nil, nil
}

// load reads the blocks of the plans' rounds, a run of consecutive rounds
// of one session at a time.
func (st Store) loadBlocks(ctx context.Context, pls []*plan) error {
	for i := 0; i < len(pls); {
		j := i + 1
		for j < len(pls) && pls[j].p.Round.SessionID == pls[i].p.Round.SessionID && pls[j].p.Round.Seq == pls[j-1].p.Round.Seq+1 {
			j++
		}
		first, last := pls[i].p.Round, pls[j-1].p.Round
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: first.SessionID, FromSeq: first.Seq, ToSeq: last.Seq, WithBlocks: true})
		if err != nil {
			return err
		}
		bySeq := make(map[int]*cairn.Round, len(rounds))
		for _, r := range rounds {
			bySeq[r.Seq] = r
		}
		for _, pl := range pls[i:j] {
			r := bySeq[pl.p.Round.Seq]
			if r == nil {
				return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", pl.p.Round.SessionID, pl.p.Round.Seq)
			}
			pl.p.Round, pl.loaded = keepTo(r, pl.p.Round), true
		}
		i = j
	}
	return nil
}

// plan splits a loaded round into its prompt and steps and sizes them,
// whatever the budget: the index names the steps of every round an output
// does not hold in full.
func (pl *plan) plan(f cairn.Fidelity) {
	r := pl.p.Round
	all := cairn.Steps(r.Blocks, r.LastLine)
	pl.prompt = cairn.LineRange{From: r.FirstLine, To: r.LastLine}
	if len(all) > 0 {
		pl.prompt.To = all[0].FirstLine - 1
	}
	var promptBlocks []*cairn.Block
	for _, b := range r.Blocks {
		if b.LineNo <= pl.prompt.To {
			promptBlocks = append(promptBlocks, b)
		}
	}
	if pl.opKeep != nil {
		// The steps the operation left out (a finished frame's) are not the
		// fit's to keep, cost or name.
		all = slices.DeleteFunc(all, func(s *cairn.Step) bool { return !inRanges(pl.opKeep, s.FirstLine) })
	}
	pf := condense(f)
	pl.promptTok, pl.promptP = tokensAt(r, promptBlocks, f), tokensAt(r, promptBlocks, pf)
	pl.setSteps(all, f, pf)
	pl.roundTok = pl.promptTok + sum(pl.full)
}

func (pl *plan) setSteps(steps []*cairn.Step, f, pf cairn.Fidelity) {
	r := pl.p.Round
	pl.steps, pl.keepFrom = steps, 0
	pl.full, pl.partial, pl.idx, pl.lines = nil, nil, nil, nil
	for _, s := range steps {
		line := s.IndexLine()
		full := tokensAt(r, s.Blocks, f)
		pl.full = append(pl.full, full)
		pl.partial = append(pl.partial, tokensAt(r, s.Blocks, pf))
		pl.idx = append(pl.idx, cairn.EstimateTokens(line)+2)
		pl.lines = append(pl.lines, cairn.IndexEntry{Round: r.Seq, From: s.Seq, To: s.Seq, Line: line, Tokens: full})
	}
}

// tokensAt estimates blocks of r at fidelity f as the client sends them:
// sidechain blocks and the client's compaction lines are not sent.
func tokensAt(r *cairn.Round, blocks []*cairn.Block, f cairn.Fidelity) int64 {
	var n int64
	if f != cairn.FullFidelity {
		blocks = Apply(&cairn.Round{Seq: r.Seq, SessionID: r.SessionID, Blocks: blocks}, f).Blocks
	}
	for _, b := range blocks {
		if !b.Sidechain && !isBoundary(b) {
			n += cairn.BlockTokens(b)
		}
	}
	return n
}

// condense returns f with each kind at least as condensed as partial.
func condense(f cairn.Fidelity) cairn.Fidelity {
	if f.Thinking == cairn.DetailFull {
		f.Thinking = cairn.DetailReference
	}
	if f.ToolUse == cairn.DetailFull {
		f.ToolUse = cairn.DetailSummary
	}
	if f.ToolResult == cairn.DetailFull {
		f.ToolResult = cairn.DetailSummary
	}
	return f
}

func rowTokens(r *cairn.Round) int64 {
	return cairn.EstimateTokens(export.IndexLine(r)) + 1
}

// degrade lowers rounds, oldest first, until the estimate fits budget.
// Only with runs may rows give way to runs of rounds.
func degrade(m *cairn.Materialization, plans, full []*plan, budget, asked int64, runs bool) error {
	t := m.Overhead + summaryBaseTokens + costOf(plans)
	lower := func(pl *plan, to int) {
		if pl.last || pl.level >= to {
			return
		}
		if !pl.loaded && to < levelIndex {
			return
		}
		before := pl.cost()
		pl.level = to
		t += pl.cost() - before
	}
	// Oldest rounds first, each keeps its recent steps in full and its
	// older ones as index lines, down to its last step: a step named by an
	// index line is one `cairn inject` away, where partial fidelity leaves
	// summaries that name nothing. Measured by `cairn eval retention` on
	// the long sessions, this keeps more per token (README: What surgery
	// keeps); partial fidelity and the round's index line come after.
	for _, pl := range plans {
		if t <= budget {
			return nil
		}
		if pl.last || !pl.loaded || pl.level != levelFull {
			continue
		}
		for t > budget && pl.keepFrom < len(pl.steps)-1 {
			before := pl.cost()
			pl.keepFrom++
			t += pl.cost() - before
		}
	}
	for _, to := range []int{levelPartial, levelSteps, levelIndex} {
		for _, pl := range plans {
			if t <= budget {
				return nil
			}
			if to < levelIndex && pl.keepFrom > 0 {
				continue // its steps are already condensed further than this level would
			}
			lower(pl, to)
		}
	}
	latest := full[len(full)-1]
	trim := func(limit int64) {
		for t > budget && latest.keepFrom < len(latest.steps)-1 {
			before := latest.cost()
			if before-listLineTokens-latest.extra <= limit {
				return
			}
			latest.keepFrom++
			t += latest.cost() - before
		}
	}
	trim(budget / 2) // the recent steps keep at least half the budget
	trim(0)
	// More rounds than the budget can give a row each: the oldest rows
	// give way to runs of rounds, a line each ([cairn.Materialization].RoundRuns).
	n := dropped(plans)
	for _, pl := range plans {
		if t <= budget || !runs {
			break
		}
		if pl.level == levelIndex {
			before := pl.cost()
			pl.level = levelDropped
			t += pl.cost() - before
			if n%roundRun == 0 {
				t += runLineTokens
			}
			n++
		}
	}
	if t > budget {
		return cairn.Errorf(cairn.EINVALID, "Does not fit in %d tokens: at least %d are needed (the client's own %d, the latest prompt and the last answer %d, a sixteenth kept for the client's additions). Give a larger --budget, or --budget 0 for none.",
			asked, t+asked/16, m.Overhead, latest.cost())
	}
	return nil
}

// costOf is what the plans cost in the output besides the index of their
// steps: the runs of rounds included.
func costOf(plans []*plan) int64 {
	var n int64
	for _, pl := range plans {
		n += pl.cost()
	}
	return n + int64((dropped(plans)+roundRun-1)/roundRun)*runLineTokens
}

func dropped(plans []*plan) int {
	n := 0
	for _, pl := range plans {
		if pl.level == levelDropped {
			n++
		}
	}
	return n
}

// summaryBaseTokens is the summary's text besides its tables and lists.
const summaryBaseTokens = 150

// apply writes the plans' decisions into the pieces.
func apply(m *cairn.Materialization, plans []*plan) {
	pf := condense(m.Fidelity)
	kept := make([]*cairn.Piece, 0, len(plans))
	m.Dropped, m.RoundRuns = 0, nil
	var run []*cairn.Round
	flush := func() {
		if len(run) > 0 {
			m.RoundRuns = append(m.RoundRuns, roundRunEntry(run))
			run = nil
		}
	}
	pending := map[string]*cairn.Compaction{} // a compaction whose round went to the index: the next full round carries it
	for _, pl := range plans {
		p := pl.p
		p.Fidelity, p.Keep, p.Index, p.Compaction, p.Tokens = nil, pl.opKeep, nil, nil, 0
		if pl.comp != nil && pl.level >= levelIndex {
			pending[p.Round.SessionID] = pl.comp
		}
		switch pl.level {
		case levelDropped:
			m.Dropped++
			if len(run) == roundRun || len(run) > 0 && (run[0].SessionID != p.Round.SessionID || run[len(run)-1].Seq != p.Round.Seq-1) {
				flush()
			}
			run = append(run, p.Round)
			continue
		case levelIndex:
			p.Full = false
			p.Index = append([]cairn.IndexEntry{{Round: p.Round.Seq, Tokens: pl.roundTok}}, pl.index...)
		default:
			p.Full = true
			p.Compaction = pl.comp
			if c := pending[p.Round.SessionID]; c != nil && p.Compaction == nil {
				p.Compaction = c
			}
			delete(pending, p.Round.SessionID)
			p.Index = pl.index
			from := pl.keepFrom
			if pl.level == levelSteps {
				from = max(len(pl.steps)-1, 0)
			}
			if pl.level == levelPartial {
				p.Fidelity = &pf
			}
			if pl.opKeep != nil && from > 0 {
				p.Keep = []cairn.LineRange{}
				if pl.prompt.To >= pl.prompt.From && inRanges(pl.opKeep, pl.prompt.From) {
					p.Keep = append(p.Keep, pl.prompt)
				}
				for _, s := range pl.steps[from:] {
					p.Keep = append(p.Keep, cairn.LineRange{From: s.FirstLine, To: s.LastLine})
				}
			} else if pl.opKeep == nil && (from > 0 || len(pl.pre) > 0 || pl.comp != nil && len(pl.steps) > 0 && pl.steps[0].Seq > 1) {
				p.Keep = []cairn.LineRange{}
				if pl.prompt.To >= pl.prompt.From {
					p.Keep = append(p.Keep, pl.prompt)
				}
				if from < len(pl.steps) {
					p.Keep = append(p.Keep, cairn.LineRange{From: pl.steps[from].FirstLine, To: p.Round.LastLine})
				}
			}
			p.Tokens = pl.promptTok + sum(pl.full[from:])
			if pl.level == levelPartial {
				p.Tokens = pl.promptP + sum(pl.partial)
			}
			if pl.opKeep != nil {
				f := m.Fidelity
				if pl.level == levelPartial {
					f = pf
				}
				p.Tokens = tokensAt(p.Round, keptBlocks(p, &cairn.Round{Blocks: append([]*cairn.Block(nil), p.Round.Blocks...)}).Blocks, f)
			}
		}
		flush()
		kept = append(kept, p)
	}
	flush()
	m.Pieces = kept
}

// inRanges reports whether line is in one of ranges.
func inRanges(ranges []cairn.LineRange, line int) bool {
	return slices.ContainsFunc(ranges, func(r cairn.LineRange) bool { return line >= r.From && line <= r.To })
}

// Estimate returns the tokens the client sends when it resumes m: its own
// overhead (system prompt and tools: Claude Code's from the source's first
// request, or Codex's, see [Limits].Client), the
// summary cairn writes, and the rounds in full as kept. Every edge shows
// this figure.
func Estimate(m *cairn.Materialization) int64 {
	n := m.Overhead + cairn.EstimateTokens(Summary(m))
	for _, p := range m.Pieces {
		if p.Full {
			n += p.Tokens
		}
	}
	return n
}
