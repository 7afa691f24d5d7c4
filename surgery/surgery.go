package surgery

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Store is what surgery reads.
type Store struct {
	Sessions cairn.SessionStore
	Rounds   cairn.RoundStore
	Lines    cairn.LineStore
	// Engagements, when set, gives the matrix its phase rows.
	Engagements cairn.EngagementStore

	// LinesOnly leaves the blocks of full rounds unloaded: a Claude Code
	// export is made of the rounds' lines, and reading every block of a
	// long session costs a third of the export.
	LinesOnly bool
	// NoLines leaves the lines of full rounds unread: an output written
	// from blocks alone (markdown: cairn's pi compaction) never needs them.
	NoLines bool

	// OffPath, when set, names the lines of session s that lie off the
	// path its client resumes (a pi session's branches the person left,
	// pi.SessionOffPath); a round made only of them is left out of every
	// operation, as the client leaves it out of what it sends. Nil for a
	// session without branches.
	OffPath func(ctx context.Context, s *cairn.Session) (map[int]bool, error)

	// Limits are the budget every output fits in and what it keeps from
	// before the client's compactions; the zero value fits nothing.
	Limits Limits

	sizeOnly bool // fit and estimate only: no line or block is read for writing
	// reviving fits the budget alone, not also under what the client loads
	// today ([Revive]: a compacted remnant is no ceiling).
	reviving bool
}

// load returns a session and its rounds, without blocks: round 0 too when
// it holds work ([Worked]).
func (st Store) load(ctx context.Context, ref string) (*cairn.Session, []*cairn.Round, error) {
	s, err := st.Sessions.FindSessionByID(ctx, ref)
	if err != nil {
		return nil, nil, err
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID})
	if err != nil {
		return nil, nil, err
	}
	if len(rounds) > 0 && rounds[0].Seq == 0 && !Worked(rounds[0]) {
		rounds = rounds[1:]
	}
	if rounds, err = st.onPath(ctx, s, rounds); err != nil {
		return nil, nil, err
	}
	if len(rounds) == 0 {
		return nil, nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no rounds.", s.ID)
	}
	return s, rounds, nil
}

// onPath fits rounds to the path the client resumes ([Store.OffPath]),
// read once per load: a round whose every line lies off it is left out;
// one whose last lines do (a branch left at its middle: the lines off a
// round's path are its last, since a branch opens a round of its own)
// ends at its last line on it, its previews, tools and end read from the
// blocks before ([endAt]). Every later read of the round keeps to that
// end ([keepTo]), so what the client does not send is neither written,
// sized, named in the index nor put in the ledger.
func (st Store) onPath(ctx context.Context, s *cairn.Session, rounds []*cairn.Round) ([]*cairn.Round, error) {
	if st.OffPath == nil {
		return rounds, nil
	}
	off, err := st.OffPath(ctx, s)
	if err != nil || len(off) == 0 {
		return rounds, err
	}
	kept := rounds[:0:0]
	for _, r := range rounds {
		last := r.LastLine
		for last >= r.FirstLine && off[last] {
			last--
		}
		switch {
		case last < r.FirstLine:
			continue
		case last < r.LastLine:
			full := r
			if full.Blocks == nil {
				if full, err = st.Rounds.FindRound(ctx, s.ID, r.Seq); err != nil {
					return nil, err
				}
				full.EngagementID, full.FrameID = r.EngagementID, r.FrameID
			}
			r = endAt(full, last)
		}
		kept = append(kept, r)
	}
	return kept, nil
}

// onPathRound is [Store.onPath] of one round read with its blocks, which
// inject prints: a round wholly off the path stays as stored, since it was
// asked for by name.
func (st Store) onPathRound(ctx context.Context, s *cairn.Session, r *cairn.Round) (*cairn.Round, error) {
	kept, err := st.onPath(ctx, s, []*cairn.Round{r})
	if err != nil || len(kept) == 0 {
		return r, err
	}
	return kept[0], nil
}

// endAt returns a copy of round r (read with its blocks) that ends at line
// last: the blocks after it left out, its previews and tools those of the
// blocks kept, as a reader would have made them ([cairn.RoundDraft]).
func endAt(r *cairn.Round, last int) *cairn.Round {
	c := *r
	c.LastLine, c.UserPreview, c.AgentPreview, c.Tools, c.Blocks = last, "", "", nil, nil
	d := cairn.RoundDraft{Round: &c}
	for _, b := range r.Blocks {
		if b.LineNo > last {
			break
		}
		d.Add(&cairn.Line{No: b.LineNo, Timestamp: b.Timestamp}, b.Role, b.Kind, b.Content, b.MessageID, nil)
		if b.Kind == cairn.ToolUse {
			c.AddTool(b.ToolName)
		}
		if !b.Timestamp.IsZero() {
			c.EndedAt = b.Timestamp
		}
	}
	c.Blocks = append(r.Blocks[:0:0], r.Blocks[:len(d.Blocks)]...)
	return &c
}

// keepTo returns r, a round read again from the store, as the operation
// loaded it (as): when load ended it early ([Store.onPath]), without the
// lines and blocks after that end, with the end's previews and tools.
func keepTo(r, as *cairn.Round) *cairn.Round {
	if r.LastLine <= as.LastLine {
		return r
	}
	c := *r
	c.LastLine, c.EndedAt, c.UserPreview, c.AgentPreview, c.Tools = as.LastLine, as.EndedAt, as.UserPreview, as.AgentPreview, as.Tools
	c.Blocks = r.Blocks[:0:0]
	for _, b := range r.Blocks {
		if b.LineNo <= as.LastLine {
			c.Blocks = append(c.Blocks, b)
		}
	}
	return &c
}

// Worked reports whether round r holds anything of the conversation: a
// round 0 (what comes before the first typed prompt) holds only metadata
// in most sessions, but in a resumed or continued file (the client's
// summary first), a session a hook or command started, or a sub-agent's
// transcript, it holds steps, which every operation carries like any
// round's.
func Worked(r *cairn.Round) bool {
	return r.Seq > 0 || len(r.Tools) > 0 || r.AgentPreview != "" || r.UserPreview != ""
}

// materialize fills the full pieces with their blocks (at fidelity f) and
// raw lines, reading each run of consecutive full rounds of a session at
// once, and sets the frontmatter.
func (st Store) materialize(ctx context.Context, m *cairn.Materialization) error {
	if err := st.fitNoLarger(ctx, m); err != nil {
		return err
	}
	if st.sizeOnly {
		return nil
	}
	full := m.FullPieces()
	for i := 0; i < len(full); {
		j := i + 1
		for j < len(full) && full[j].Round.SessionID == full[i].Round.SessionID && full[j].Round.Seq == full[j-1].Round.Seq+1 {
			j++
		}
		if err := st.fill(ctx, full[i:j], m.Fidelity); err != nil {
			return err
		}
		i = j
	}
	engagements := map[string]bool{}
	for _, s := range m.Sources {
		if m.StartedAt.IsZero() || (!s.StartedAt.IsZero() && s.StartedAt.Before(m.StartedAt)) {
			m.StartedAt = s.StartedAt
		}
		if s.EndedAt.After(m.EndedAt) {
			m.EndedAt = s.EndedAt
		}
		m.Rounds += s.Rounds
	}
	for _, p := range m.Pieces {
		if e := p.Round.EngagementID; e != "" && !engagements[e] {
			engagements[e] = true
			m.Engagements = append(m.Engagements, e)
		}
	}
	sort.Strings(m.Engagements)
	return nil
}

// fitNoLarger fits m in its budget. Every operation but revive (which
// fits its budget alone) is also fitted under what the client loads for
// its sources today ([Resume]), so that under a budget surgery never grows
// a context: a part that holds nearly all of a session gives up its oldest
// steps to index lines, and a compress-before of rounds the client had
// already compacted away does not come back larger by its ledger and index.
// When even that tighter fit is impossible, or leaves rounds without a row
// (what the client loads is a small remnant after a late compaction, no
// ceiling for what surgery brings back), the budget alone decides.
func (st Store) fitNoLarger(ctx context.Context, m *cairn.Materialization) error {
	if st.sizeOnly || st.reviving || st.Limits.Budget == 0 || m.Operation == "select" || m.Operation == opResume || m.Operation == cairn.OpRevive {
		return st.fit(ctx, m)
	}
	var now int64
	for _, s := range m.Sources {
		r, err := Resume(ctx, st, s.ID)
		if err != nil {
			return err
		}
		now += Estimate(r)
	}
	budget := st.Limits.Budget
	if budget == AutoBudget {
		fc, err := st.facts(ctx, m.Sources[0])
		if err != nil {
			return err
		}
		budget = DefaultBudget(fc.model)
	}
	// The fit keeps a sixteenth for the client's additions, which resuming
	// the original carries too: the tighter budget is asked with it.
	tight := (now - now/50) * 16 / 15 // 2 % under: the estimate is not the request
	if tight >= budget {
		return st.fit(ctx, m)
	}
	saved := make([]cairn.Piece, len(m.Pieces))
	for i, p := range m.Pieces {
		saved[i] = *p
	}
	narrow := st
	narrow.Limits.Budget = tight
	err := narrow.fit(ctx, m)
	if err == nil && m.Dropped == 0 || err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
		return err
	}
	m.Pieces = m.Pieces[:0]
	for i := range saved {
		m.Pieces = append(m.Pieces, &saved[i])
	}
	return st.fit(ctx, m)
}

// fill gives consecutive full rounds of one session their blocks (at
// fidelity f) and lines. A round the fit read ([Store.loadBlocks]) keeps
// the blocks it read, which are not read again; the lines are read only
// for an output written from them ([Store.NoLines]).
func (st Store) fill(ctx context.Context, run []*cairn.Piece, f cairn.Fidelity) error {
	first, last := run[0].Round, run[len(run)-1].Round
	var bySeq map[int]*cairn.Round
	if slices.ContainsFunc(run, func(p *cairn.Piece) bool { return p.Round.Blocks == nil }) {
		rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: first.SessionID, FromSeq: first.Seq, ToSeq: last.Seq, WithBlocks: !st.LinesOnly})
		if err != nil {
			return err
		}
		bySeq = make(map[int]*cairn.Round, len(rounds))
		for _, r := range rounds {
			bySeq[r.Seq] = r
		}
	}
	var lines []*cairn.Line
	if !st.NoLines {
		var err error
		if lines, err = st.Lines.FindLines(ctx, first.SessionID, first.FirstLine, last.LastLine); err != nil {
			return err
		}
	}
	for _, p := range run {
		r := p.Round
		if r.Blocks == nil {
			if r = bySeq[p.Round.Seq]; r == nil {
				return cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", p.Round.SessionID, p.Round.Seq)
			}
			r = keepTo(r, p.Round)
		} else if st.LinesOnly {
			c := *r
			c.Blocks = nil
			r = &c
		}
		p.Round = keptBlocks(p, Apply(r, p.FidelityOr(f)))
		if st.NoLines {
			continue
		}
		for len(lines) > 0 && lines[0].No < r.FirstLine {
			lines = lines[1:]
		}
		n := 0
		for n < len(lines) && lines[n].No <= r.LastLine {
			n++
		}
		p.Lines, lines = lines[:n], lines[n:]
		if len(p.Keep) > 0 {
			kept := make([]*cairn.Line, 0, len(p.Lines))
			for _, l := range p.Lines {
				if p.Kept(l.No) {
					kept = append(kept, l)
				}
			}
			p.Lines = kept
		}
	}
	return nil
}

// keptBlocks leaves out of r the blocks on lines p does not keep.
func keptBlocks(p *cairn.Piece, r *cairn.Round) *cairn.Round {
	if len(p.Keep) == 0 {
		return r
	}
	kept := r.Blocks[:0]
	for _, b := range r.Blocks {
		if p.Kept(b.LineNo) {
			kept = append(kept, b)
		}
	}
	r.Blocks = kept
	return r
}

func newMaterialization(op string, f cairn.Fidelity, sources []*cairn.Session, args ...string) *cairn.Materialization {
	return &cairn.Materialization{Operation: op, Args: args, Sources: sources, Fidelity: f}
}

// Select is the general operation the others are made of: keep says, for
// each round of the session in order, whether it is part of the result and
// whether in full (else as an index line). Returns EINVALID if no round is
// kept in full.
func Select(ctx context.Context, st Store, session string, keep func(r *cairn.Round) (kept, full bool), f cairn.Fidelity) (*cairn.Materialization, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, err
	}
	m := newMaterialization("select", f, []*cairn.Session{s}, s.ID)
	n := 0
	for _, r := range rounds {
		if k, full := keep(r); k {
			m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: full})
			if full {
				n++
			}
		}
	}
	if n == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "No round of %s would be in full.", s.ID)
	}
	return m, st.materialize(ctx, m)
}

// CompressBefore replaces the rounds before at by one index table and keeps
// the rounds at or after it in full. Returns ENOTFOUND if the session does
// not exist and EINVALID if no round would stay in full.
func CompressBefore(ctx context.Context, st Store, session string, at Point, f cairn.Fidelity) (*cairn.Materialization, error) {
	m, cut, err := compressBefore(ctx, st, session, at, f)
	if err != nil || cut > 0 {
		return m, err
	}
	s := m.Sources[0]
	// Nothing before the point: only the budget can shrink the session. An
	// output no smaller than what the client loads today is refused.
	orig, err := Resume(ctx, st, s.ID)
	if err != nil {
		return nil, err
	}
	if now, out := Estimate(orig), Estimate(m); out >= now {
		budget := "no budget"
		if m.Budget > 0 {
			budget = fmt.Sprintf("a budget of %d", m.Budget)
		}
		return nil, cairn.Errorf(cairn.EINVALID, "Nothing to compress: no round of %s comes before %s, and with %s the output would be ~%d tokens, no fewer than the ~%d the client loads for the session as it is. Give a later round (cairn rounds %s shows them) or a smaller --budget.",
			s.ID, at, budget, out, now, s.ID)
	}
	return m, nil
}

// compressBefore is compress-before without its refusal of a cut that
// compresses nothing (revive lets the budget decide); cut counts the
// rounds it compressed.
func compressBefore(ctx context.Context, st Store, session string, at Point, f cairn.Fidelity) (*cairn.Materialization, int, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, 0, err
	}
	m, cut := cutBefore(s, rounds, at, f)
	if len(m.FullPieces()) == 0 {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "No round of %s starts at or after %s: nothing would stay in full.", s.ID, at)
	}
	return m, cut, st.materialize(ctx, m)
}

// cutBefore lays out compress-before's pieces: the rounds before at as
// index lines, the others in full. cut counts the prompted rounds (round 0 is not one) it compresses.
func cutBefore(s *cairn.Session, rounds []*cairn.Round, at Point, f cairn.Fidelity) (m *cairn.Materialization, cut int) {
	m = newMaterialization(cairn.OpCompressBefore, f, []*cairn.Session{s}, s.ID, at.String())
	for _, r := range rounds {
		full := !at.After(r)
		if !full && r.Seq > 0 {
			cut++
		}
		m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: full})
	}
	return m, cut
}

// CompressEngagement replaces the rounds tagged with engagement by index
// lines and keeps every other round in full. Returns ENOTFOUND if no round
// of the session carries the tag.
func CompressEngagement(ctx context.Context, st Store, session, engagement string, f cairn.Fidelity) (*cairn.Materialization, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, err
	}
	m := newMaterialization(cairn.OpCompressEngagement, f, []*cairn.Session{s}, s.ID, engagement)
	tagged, kept := 0, 0
	for _, r := range rounds {
		in := r.EngagementID == engagement
		if in {
			tagged++
		} else {
			kept++
		}
		m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: !in})
	}
	if tagged == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No round of %s is tagged %q (cairn tag suggest finds candidates).", s.ID, engagement)
	} else if kept == 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "Every round of %s is tagged %q: nothing would stay in full.", s.ID, engagement)
	}
	return m, st.materialize(ctx, m)
}

// ExtractEngagement keeps only the rounds tagged with engagement, in full.
// Returns ENOTFOUND if no round of the session carries the tag.
func ExtractEngagement(ctx context.Context, st Store, session, engagement string, f cairn.Fidelity) (*cairn.Materialization, error) {
	s, rounds, err := st.load(ctx, session)
	if err != nil {
		return nil, err
	}
	m := newMaterialization(cairn.OpExtractEngagement, f, []*cairn.Session{s}, s.ID, engagement)
	for _, r := range rounds {
		if r.EngagementID == engagement {
			m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
		}
	}
	if len(m.Pieces) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No round of %s is tagged %q (cairn tag suggest finds candidates).", s.ID, engagement)
	}
	m.Label = engagement
	return m, st.materialize(ctx, m)
}

// Merge interleaves the rounds of two sessions by start time, all in full.
// Each piece's round keeps its SessionID: the provenance writers show.
// Returns EINVALID if a and b are the same session.
func Merge(ctx context.Context, st Store, a, b string, f cairn.Fidelity) (*cairn.Materialization, error) {
	sa, ra, err := st.load(ctx, a)
	if err != nil {
		return nil, err
	}
	sb, rb, err := st.load(ctx, b)
	if err != nil {
		return nil, err
	}
	if sa.ID == sb.ID {
		return nil, cairn.Errorf(cairn.EINVALID, "Merge needs two different sessions, got %s twice.", sa.ID)
	}
	m := newMaterialization(cairn.OpMerge, f, []*cairn.Session{sa, sb}, sa.ID, sb.ID)
	all := append(append([]*cairn.Round(nil), ra...), rb...)
	// Stable: rounds of one session keep their order; on a tie a's come first.
	sort.SliceStable(all, func(i, j int) bool { return all[i].StartedAt.Before(all[j].StartedAt) })
	for _, r := range all {
		m.Pieces = append(m.Pieces, &cairn.Piece{Round: r, Full: true})
	}
	return m, st.materialize(ctx, m)
}

// Inject returns one round in full, as stored. It is a read: nothing
// changes. Returns ENOTFOUND if the session or round does not exist.
func Inject(ctx context.Context, st Store, session string, seq int, f cairn.Fidelity) (*cairn.Materialization, error) {
	s, err := st.Sessions.FindSessionByID(ctx, session)
	if err != nil {
		return nil, err
	}
	r, err := st.Rounds.FindRound(ctx, s.ID, seq)
	if err != nil {
		return nil, err
	}
	if r, err = st.onPathRound(ctx, s, r); err != nil {
		return nil, err
	}
	r.Blocks = nil
	m := newMaterialization(cairn.OpInject, f, []*cairn.Session{s}, s.ID, itoa(seq))
	m.Pieces = []*cairn.Piece{{Round: r, Full: true}}
	return m, st.materialize(ctx, m)
}

// A Point is where compress-before cuts: a round number or a time. The
// zero Point cuts nothing: round 0 and every round after it stay.
type Point struct {
	Seq  int
	Time time.Time
}

// After reports whether r lies before p: r is compressed.
func (p Point) After(r *cairn.Round) bool {
	if p.Seq > 0 || p.Time.IsZero() {
		return r.Seq < p.Seq
	}
	return r.StartedAt.Before(p.Time)
}

func (p Point) String() string {
	if p.Seq > 0 || p.Time.IsZero() {
		return "round " + itoa(p.Seq)
	}
	return p.Time.UTC().Format(time.RFC3339)
}

// A Ref is what inject prints: a whole round (From 0), one step (From ==
// To) or a run of steps of one round, as index entries name them
// ([cairn.IndexEntry.Ref]).
type Ref struct{ Round, From, To int }

// ParseRef reads "7", "7.12", "7.3-7.9" or "7.3-9". Returns EINVALID for
// anything else.
func ParseRef(s string) (Ref, error) {
	bad := cairn.Errorf(cairn.EINVALID, "A reference is a round, a step or a run of steps (7, 7.12 or 7.3-7.9), got %q.", s)
	head, tail, isRun := strings.Cut(strings.TrimSpace(s), "-")
	round, step, isStep := strings.Cut(head, ".")
	var r Ref
	var err error
	if r.Round, err = strconv.Atoi(round); err != nil || r.Round < 0 {
		return r, bad
	}
	if !isStep {
		if isRun {
			return r, bad
		}
		return r, nil
	}
	if r.From, err = strconv.Atoi(step); err != nil || r.From < 1 {
		return r, bad
	}
	r.To = r.From
	if isRun {
		if tr, ts, ok := strings.Cut(tail, "."); ok {
			if n, err := strconv.Atoi(tr); err != nil || n != r.Round {
				return r, cairn.Errorf(cairn.EINVALID, "A run of steps lies in one round: %q spans two.", s)
			}
			tail = ts
		}
		if r.To, err = strconv.Atoi(tail); err != nil || r.To < r.From {
			return r, bad
		}
	}
	return r, nil
}

func (r Ref) String() string {
	return cairn.IndexEntry{Round: r.Round, From: r.From, To: r.To}.Ref()
}

// InjectRef prints what ref names, as stored: a round ([Inject]), a step
// or a run of steps (assistant turns with their tool calls and results).
// It is a read. Returns ENOTFOUND if the session, round or steps do not
// exist.
func InjectRef(ctx context.Context, st Store, session string, ref Ref, f cairn.Fidelity) (*cairn.Materialization, error) {
	if ref.From == 0 {
		return Inject(ctx, st, session, ref.Round, f)
	}
	s, err := st.Sessions.FindSessionByID(ctx, session)
	if err != nil {
		return nil, err
	}
	r, err := st.Rounds.FindRound(ctx, s.ID, ref.Round)
	if err != nil {
		return nil, err
	}
	if r, err = st.onPathRound(ctx, s, r); err != nil {
		return nil, err
	}
	steps := cairn.Steps(r.Blocks, r.LastLine)
	if ref.To > len(steps) {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Round %d of %s has %d steps, not a step %d.", ref.Round, s.ID, len(steps), ref.To)
	}
	first, last := steps[ref.From-1], steps[ref.To-1]
	r.Blocks = nil
	st.Limits = Limits{BeforeCompaction: BeforeFull}
	m := newMaterialization(cairn.OpInject, f, []*cairn.Session{s}, s.ID, ref.String())
	m.Label = fmt.Sprintf("round %d step %d", ref.Round, ref.From)
	if ref.To > ref.From {
		m.Label = fmt.Sprintf("round %d steps %d to %d", ref.Round, ref.From, ref.To)
	}
	m.Pieces = []*cairn.Piece{{Round: r, Full: true, Keep: []cairn.LineRange{{From: first.FirstLine, To: last.LastLine}}}}
	return m, st.materialize(ctx, m)
}
