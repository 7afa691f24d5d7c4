package assemble

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// A doc is an assembled context before rendering: its items, each at a
// fidelity the budget manager chooses, and the current frame's pinned
// title and criteria.
type doc struct {
	items    []*item
	path     []*cairn.Frame // root … current
	core     *item
	ancestor []*item // by depth, parallel to path[:len(path)-1]
	siblings map[string]*item
	work     *item
	log      *item
	index    *item
	relay    []*item
	criteria *pinned
	tree     *cairn.FrameTree

	// elided is how many of the path's frames after the root are left
	// out, nearest the root first: the last resort of a deep path whose
	// bare outline alone outgrows the budget.
	elided int
}

func (d *doc) children(id string) []*cairn.Frame { return d.tree.Children(id) }

// An item is one piece of the context that degrades as a unit.
type item struct {
	section cairn.Section
	id      string
	imp     int // within its section, the item of lowest importance degrades first
	floor   cairn.Resolution
	fid     cairn.Resolution
	fields  [4][]field // what the item shows at each fidelity
	depth   int        // nesting, for the formats that indent
	frame   *cairn.Frame

	frag  [4]string
	cost  [4]cost
	known [4]bool
}

// A cost is what a text takes of a budget.
type cost struct{ tokens, chars int }

func (c cost) add(d cost) cost { return cost{c.tokens + d.tokens, c.chars + d.chars} }
func (c cost) sub(d cost) cost { return cost{c.tokens - d.tokens, c.chars - d.chars} }

// over reports whether c exceeds a cap; a zero cap does not limit.
func (c cost) over(tokens, chars int) bool {
	return tokens > 0 && c.tokens > tokens || chars > 0 && c.chars > chars
}

// pinned is the current frame's title and success criteria: never
// degraded, and cut short only when nothing else is left to cut, title
// first. A negative length shows all.
type pinned struct {
	title, criteria       string
	titleLen, criteriaLen int // runes shown
}

const truncMark = "…[truncated]"

func (p *pinned) shownTitle() string    { return cutRunes(p.title, p.titleLen) }
func (p *pinned) shownCriteria() string { return cutRunes(p.criteria, p.criteriaLen) }

func cutRunes(s string, n int) string {
	if n < 0 || n >= utf8.RuneCountInString(s) {
		return s
	}
	return string([]rune(s)[:n]) + truncMark
}

func (d *doc) add(s cairn.Section, id string, imp int, floor cairn.Resolution, fields [4][]field) *item {
	it := &item{section: s, id: id, imp: imp, floor: floor, fields: fields}
	d.items = append(d.items, it)
	if d.siblings == nil {
		d.siblings = make(map[string]*item)
	}
	return it
}

// A fitter chooses the fidelity of every item of a doc so that the
// rendered context stays within a budget.
type fitter struct {
	doc     *doc
	format  format
	budget  cairn.Budget
	counter Counter
	cuts    []cairn.Cut

	order   []cairn.Section           // sections by priority, lowest first
	cursors map[cairn.Section]*cursor // where next looks in each section

	// ratio, when set, turns the cheap estimate into an item's token cost:
	// counting every fragment of a thousand items exactly costs more than
	// the rest of assembly, so large documents count a sample exactly and
	// scale the estimate by it. The rendered whole is always counted
	// exactly.
	ratio float64
}

// exactItems is the size of document whose items are all counted exactly.
const exactItems = 200

// A cursor walks one section's items in the order they degrade: every
// item one step at a time, least important first, before any takes a
// second step. Items only ever degrade, so the walk never goes back.
type cursor struct {
	items []*item // by importance, least first (stable: ties in doc order)
	level cairn.Resolution
	i     int
}

func (f *fitter) measure(text string) cost {
	c := cost{chars: len(text)}
	if f.budget.Tokens > 0 {
		c.tokens = f.counter.Count(text)
	}
	return c
}

func (f *fitter) itemCost(it *item, fid cairn.Resolution) cost {
	if !it.known[fid] {
		it.frag[fid] = f.format.frag(it, fid)
		if f.ratio > 0 {
			text := it.frag[fid]
			it.cost[fid] = cost{tokens: int(math.Ceil(float64(Estimate.Count(text)) * f.ratio)), chars: len(text)}
		} else {
			it.cost[fid] = f.measure(it.frag[fid])
		}
		it.known[fid] = true
	}
	return it.cost[fid]
}

// calibrate sets ratio from an exact count of a sample of the items, when
// the document is too large to count every item exactly.
func (f *fitter) calibrate() {
	items := f.doc.items
	if f.budget.Tokens == 0 || len(items) <= exactItems {
		return
	}
	var exact, est int
	for _, it := range items[:exactItems/4] {
		c := f.itemCost(it, cairn.Full) // exact: ratio is not set yet
		exact, est = exact+c.tokens, est+Estimate.Count(it.frag[cairn.Full])
	}
	if exact > 0 && est > 0 {
		f.ratio = float64(exact) / float64(est)
	}
}

func (f *fitter) priority(s cairn.Section) int { return f.budget.Allocation(s).Priority }

// next returns the item of section s to degrade: the least important of
// those at the highest fidelity still above their floor; nil if none.
func (f *fitter) next(s cairn.Section) *item {
	c := f.cursors[s]
	if c == nil {
		c = &cursor{}
		for _, it := range f.doc.items {
			if it.section == s {
				c.items = append(c.items, it)
			}
		}
		slices.SortStableFunc(c.items, func(a, b *item) int { return a.imp - b.imp })
		if f.cursors == nil {
			f.cursors = make(map[cairn.Section]*cursor)
		}
		f.cursors[s] = c
	}
	for ; c.level < cairn.Dropped; c.level, c.i = c.level+1, 0 {
		for ; c.i < len(c.items); c.i++ {
			if it := c.items[c.i]; it.fid == c.level && it.fid < it.floor {
				return it
			}
		}
	}
	return nil
}

// victim returns the next item to degrade anywhere: from the section of
// lowest priority that still has one.
func (f *fitter) victim() *item {
	if f.order == nil {
		f.order = slices.Clone(cairn.Sections)
		slices.SortStableFunc(f.order, func(a, b cairn.Section) int { return f.priority(a) - f.priority(b) })
	}
	for _, s := range f.order {
		if it := f.next(s); it != nil {
			return it
		}
	}
	return nil
}

// fit runs the budget manager:
//
//  1. Every item starts full.
//  2. A section over its share of either cap degrades its own items, least
//     important first, one fidelity step at a time (full → compacted → one
//     line → dropped), until it is within its share.
//  3. While the estimated whole is over budget, the section of lowest
//     priority degrades one step.
//  4. The context is rendered and counted exactly; while it is over, step
//     3 goes on (estimates add the costs of separately counted pieces, and
//     a BPE count is not quite additive).
//  5. When every item is dropped and the context is still over, the
//     fewest ancestors that make it fit are left out of the outline
//     (never the root or the parent, nearest the root first); then the
//     current frame's title, then its success criteria, are cut short,
//     marked "…[truncated]", keeping as much as fits. The criteria are
//     never dropped: if not even their first character fits, fit returns
//     EINVALID (a budget at or above the floors of [cairn.Budget] always
//     fits the trees cairn is built for).
//
// Every step down is recorded as a [cairn.Cut], and the rendered context
// says what was cut.
func (f *fitter) fit() (string, error) {
	d := f.doc
	f.calibrate()
	// The cost of the text around the items, from the smallest rendering.
	for _, it := range d.items {
		it.fid = it.floor
	}
	overhead := f.measure(f.format.render(d, ""))
	for _, it := range d.items {
		overhead = overhead.sub(f.itemCost(it, it.fid))
		it.fid = cairn.Full
	}
	total, sections := overhead, make(map[cairn.Section]cost)
	for _, it := range d.items {
		c := f.itemCost(it, it.fid)
		total, sections[it.section] = total.add(c), sections[it.section].add(c)
	}
	degrade := func(it *item) {
		c := f.itemCost(it, it.fid+1).sub(f.itemCost(it, it.fid))
		total, sections[it.section] = total.add(c), sections[it.section].add(c)
		it.fid++
	}
	for _, a := range f.budget.Allocations {
		if a.Share == 0 {
			continue
		}
		tokens, chars := f.budget.Tokens*a.Share/100, f.budget.Chars*a.Share/100
		for sections[a.Section].over(tokens, chars) {
			it := f.next(a.Section)
			if it == nil {
				break
			}
			degrade(it)
		}
	}
	// The note is measured only once the items alone fit: before that,
	// counting it at every step would cost more than all the rest.
	for total.over(f.budget.Tokens, f.budget.Chars) || total.add(f.measure(f.format.note(f.note()))).over(f.budget.Tokens, f.budget.Chars) {
		it := f.victim()
		if it == nil {
			break
		}
		degrade(it)
	}
	for {
		text := f.format.render(d, f.note())
		got := f.measure(text)
		if !got.over(f.budget.Tokens, f.budget.Chars) {
			return text, nil
		}
		// Degrade until the estimated savings cover the excess (at least
		// one step), then count again.
		need := cost{max(got.tokens-f.budget.Tokens, 0), max(got.chars-f.budget.Chars, 0)}
		if f.budget.Tokens == 0 {
			need.tokens = 0
		}
		if f.budget.Chars == 0 {
			need.chars = 0
		}
		for saved := (cost{}); ; {
			it := f.victim()
			if it == nil {
				return f.truncate()
			}
			before := total
			degrade(it)
			saved = saved.add(before.sub(total))
			if saved.tokens >= need.tokens && saved.chars >= need.chars {
				break
			}
		}
	}
}

// truncate leaves out the fewest ancestors that make the context fit,
// then cuts the current frame's title, then its criteria, to the longest
// prefix that fits.
func (f *fitter) truncate() (string, error) {
	p := f.doc.criteria
	if p == nil {
		return "", cairn.Errorf(cairn.EINVALID, "The budget cannot hold even the context's outline; raise it.")
	}
	fits := func() (string, bool) {
		text := f.format.render(f.doc, f.note())
		return text, !f.measure(text).over(f.budget.Tokens, f.budget.Chars)
	}
	// The longest n in [lo, hi] for which set(n) fits, or -1.
	search := func(lo, hi int, set func(int)) int {
		best := -1
		for lo <= hi {
			mid := (lo + hi) / 2
			set(mid)
			if _, ok := fits(); ok {
				best, lo = mid, mid+1
			} else {
				hi = mid - 1
			}
		}
		return best
	}
	d := f.doc
	if n := len(d.path) - 3; n > 0 { // the frames between the root and the parent
		keep := search(0, n-1, func(k int) { d.elided = n - k })
		if keep >= 0 {
			d.elided = n - keep
			text, _ := fits()
			return text, nil
		}
		d.elided = n
	}
	// A title no longer than the mark is kept: cutting it saves nothing.
	if utf8.RuneCountInString(p.title) > utf8.RuneCountInString(truncMark) {
		n := search(0, utf8.RuneCountInString(p.title)-1, func(n int) { p.titleLen = n })
		if n >= 0 {
			p.titleLen = n
			text, _ := fits()
			return text, nil
		}
		p.titleLen = 0
	}
	n := search(1, utf8.RuneCountInString(p.criteria)-1, func(n int) { p.criteriaLen = n })
	if n < 0 {
		return "", cairn.Errorf(cairn.EINVALID, "The budget (%d tokens, %d characters) cannot hold the current frame's success criteria; raise it.",
			f.budget.Tokens, f.budget.Chars)
	}
	p.criteriaLen = n
	text, _ := fits()
	return text, nil
}

// note returns the line that says what was cut, "" if nothing was, and
// records the cuts.
func (f *fitter) note() string {
	f.cuts = f.cuts[:0]
	counts := make(map[cairn.Section]*[4]int)
	for _, it := range f.doc.items {
		if it.fid == cairn.Full {
			continue
		}
		f.cuts = append(f.cuts, cairn.Cut{Section: it.section, Item: it.id, To: it.fid})
		if counts[it.section] == nil {
			counts[it.section] = new([4]int)
		}
		counts[it.section][it.fid]++
	}
	var parts []string
	for _, s := range cairn.Sections {
		if c := counts[s]; c != nil {
			var ps []string
			for fid := cairn.Compacted; fid <= cairn.Dropped; fid++ {
				if c[fid] > 0 {
					ps = append(ps, fmt.Sprintf("%d %s", c[fid], fid))
				}
			}
			parts = append(parts, string(s)+" "+strings.Join(ps, ", "))
		}
	}
	if n := f.doc.elided; n == 1 {
		parts = append(parts, "1 ancestor left out of the outline")
	} else if n > 1 {
		parts = append(parts, fmt.Sprintf("%d ancestors left out of the outline", n))
	}
	if p := f.doc.criteria; p != nil {
		if p.titleLen >= 0 {
			f.cuts = append(f.cuts, cairn.Cut{Section: cairn.SectionCurrent, Item: "title", To: cairn.Full, Truncated: true})
			parts = append(parts, "current title truncated")
		}
		if p.criteriaLen >= 0 {
			f.cuts = append(f.cuts, cairn.Cut{Section: cairn.SectionCurrent, Item: "criteria", To: cairn.Full, Truncated: true})
			parts = append(parts, fmt.Sprintf("success criteria truncated to %d of %d characters", p.criteriaLen, utf8.RuneCountInString(p.criteria)))
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "Cut to fit the budget: " + strings.Join(parts, "; ") + ". More: cairn tree, cairn context --budget N."
}
