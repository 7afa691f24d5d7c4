package cairn

import "fmt"

// A Section is one part of an assembled context.
type Section string

// Sections of an assembled context, from the one kept longest to the one
// cut first under the default priorities.
const (
	SectionCurrent   Section = "current"   // the current frame: criteria, partial results, children, log
	SectionCore      Section = "core"      // mission, phase, task, workspace
	SectionAncestors Section = "ancestors" // the goals the current frame serves
	SectionSiblings  Section = "siblings"  // sibling frames: results of completed ones, plans of the rest
	SectionIndex     Section = "index"     // files to read when more is needed
	SectionRelay     Section = "relay"     // workspace files carried in full
)

// Sections lists every section in default priority order, highest first.
var Sections = []Section{SectionCurrent, SectionCore, SectionAncestors, SectionSiblings, SectionIndex, SectionRelay}

// A Resolution is how much of an item an assembled context shows. Under
// budget pressure an item degrades one step at a time, in this order.
type Resolution int

// Resolutions, from most to least.
const (
	Full      Resolution = iota // everything recorded
	Compacted                   // the compacted versions
	OneLine                     // a title or a name
	Dropped                     // left out; the output says so
)

var resolutionNames = [...]string{"full", "compacted", "one line", "dropped"}

// String returns "full", "compacted", "one line" or "dropped".
func (f Resolution) String() string {
	if f >= 0 && int(f) < len(resolutionNames) {
		return resolutionNames[f]
	}
	return fmt.Sprintf("Resolution(%d)", int(f))
}

// An Allocation is one section's part of a budget.
type Allocation struct {
	Section Section `json:"section"`

	// Share is the most of the budget the section may use, in percent of
	// both the token and the character cap; 0 means no limit beyond the
	// whole budget.
	Share int `json:"share"`

	// Priority orders the sections when the whole output is over budget:
	// the section of lowest priority degrades first.
	Priority int `json:"priority"`
}

// A Budget caps an assembled context. Both caps hold at once; zero means
// no cap of that kind.
type Budget struct {
	Tokens int `json:"tokens"` // counted with a BPE tokenizer
	Chars  int `json:"chars"`  // bytes of UTF-8, as hosts count them

	// Allocations are per section; a section without one has no share
	// limit and the lowest priority.
	Allocations []Allocation `json:"allocations"`
}

// Budget floors. Below them even the current frame's bare criteria may not
// fit; [Budget.Validate] rejects smaller caps.
const (
	MinBudgetTokens = 200
	MinBudgetChars  = 800
)

// HookChars is about what a Claude Code SessionStart hook may add to
// context before the host cuts it.
const HookChars = 10_000

// DefaultBudget returns the budget the CLI uses: 4,000 tokens and
// [HookChars] characters, shared out as:
//
//	section    share  priority
//	current     60%     100
//	core        25%      90
//	ancestors   25%      70
//	siblings    35%      50
//	index       15%      40
//	relay       35%      30
//
// Shares are ceilings, not reservations: they add up to more than 100% so
// that a section uses what the others leave.
func DefaultBudget() Budget {
	return Budget{
		Tokens: 4000,
		Chars:  HookChars,
		Allocations: []Allocation{
			{SectionCurrent, 60, 100},
			{SectionCore, 25, 90},
			{SectionAncestors, 25, 70},
			{SectionSiblings, 35, 50},
			{SectionIndex, 15, 40},
			{SectionRelay, 35, 30},
		},
	}
}

// Allocation returns the allocation of section s, or a zero one (no share
// limit, lowest priority).
func (b Budget) Allocation(s Section) Allocation {
	for _, a := range b.Allocations {
		if a.Section == s {
			return a
		}
	}
	return Allocation{Section: s}
}

// Validate returns EINVALID if a cap is negative or below its floor, or an
// allocation is malformed.
func (b Budget) Validate() error {
	switch {
	case b.Tokens < 0 || b.Chars < 0:
		return Errorf(EINVALID, "Budget caps cannot be negative.")
	case b.Tokens > 0 && b.Tokens < MinBudgetTokens:
		return Errorf(EINVALID, "A budget of %d tokens is too small; the floor is %d.", b.Tokens, MinBudgetTokens)
	case b.Chars > 0 && b.Chars < MinBudgetChars:
		return Errorf(EINVALID, "A budget of %d characters is too small; the floor is %d.", b.Chars, MinBudgetChars)
	}
	seen := make(map[Section]bool)
	for _, a := range b.Allocations {
		if seen[a.Section] {
			return Errorf(EINVALID, "Section %s is allocated twice.", a.Section)
		} else if a.Share < 0 || a.Share > 100 {
			return Errorf(EINVALID, "Section %s has a share of %d%%; use 0 to 100.", a.Section, a.Share)
		}
		seen[a.Section] = true
	}
	return nil
}

// A Cut records what the budget took from an assembled context: one item
// of a section shown at a lower fidelity than full, or cut short.
type Cut struct {
	Section Section    `json:"section"`
	Item    string     `json:"item"` // a frame ID, a file path, "criteria"
	To      Resolution `json:"to"`

	// Truncated is set when the item's text was cut short: the last resort,
	// used only for the current frame's title and success criteria.
	Truncated bool `json:"truncated,omitempty"`
}

// MarshalText writes the fidelity's name, so JSON stays readable.
func (f Resolution) MarshalText() ([]byte, error) { return []byte(f.String()), nil }
