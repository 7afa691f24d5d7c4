package cairn

import (
	"slices"
	"strings"
	"time"
)

// A FrameTree is the frames of a store read at one moment, indexed by
// parent. Its operations (Push, Plan, Activate, Pop, Invalidate) hold the
// lifecycle rules: each checks them against the tree and returns the
// [FrameChange] to apply, leaving the tree itself untouched.
type FrameTree struct {
	order    []*Frame // parents before children, siblings in creation order
	byID     map[string]*Frame
	children map[string][]*Frame // by parent ID; "" holds the roots
}

// NewFrameTree indexes frames, which must list parents before children (as
// [FrameStore.FindFrames] does).
func NewFrameTree(frames []*Frame) *FrameTree {
	t := &FrameTree{order: frames, byID: make(map[string]*Frame, len(frames)), children: make(map[string][]*Frame)}
	for _, f := range frames {
		t.byID[f.ID] = f
		t.children[f.ParentID] = append(t.children[f.ParentID], f)
	}
	return t
}

// Len returns the number of frames.
func (t *FrameTree) Len() int { return len(t.order) }

// Frames returns every frame, parents before children.
func (t *FrameTree) Frames() []*Frame { return t.order }

// Frame returns the frame with id, or nil.
func (t *FrameTree) Frame(id string) *Frame { return t.byID[id] }

// Roots returns the frames without a parent.
func (t *FrameTree) Roots() []*Frame { return t.children[""] }

// Children returns a frame's children in creation order.
func (t *FrameTree) Children(id string) []*Frame {
	if id == "" {
		return nil
	}
	return t.children[id]
}

// Ancestors returns a frame's ancestors, root first, parent last.
func (t *FrameTree) Ancestors(id string) []*Frame {
	var out []*Frame
	f := t.byID[id]
	for f != nil && f.ParentID != "" && len(out) <= len(t.order) {
		f = t.byID[f.ParentID]
		if f != nil {
			out = append(out, f)
		}
	}
	slices.Reverse(out)
	return out
}

// Descendants returns a frame's descendants, depth first.
func (t *FrameTree) Descendants(id string) []*Frame {
	var out []*Frame
	var walk func(id string)
	walk = func(id string) {
		for _, c := range t.Children(id) {
			out = append(out, c)
			walk(c.ID)
		}
	}
	walk(id)
	return out
}

// Walk calls fn for every frame depth first, children in creation order,
// with its depth (0 for a root).
func (t *FrameTree) Walk(fn func(f *Frame, depth int)) {
	var walk func(parent string, depth int)
	walk = func(parent string, depth int) {
		for _, c := range t.children[parent] {
			fn(c, depth)
			walk(c.ID, depth+1)
		}
	}
	walk("", 0)
}

func (t *FrameTree) find(id string) (*Frame, error) {
	if f := t.byID[id]; f != nil {
		return f, nil
	}
	return nil, Errorf(ENOTFOUND, "No frame %q.", id)
}

// clone returns a copy of f that an operation may change.
func clone(f *Frame) *Frame {
	c := *f
	c.Artifacts = slices.Clone(f.Artifacts)
	c.Decisions = slices.Clone(f.Decisions)
	c.DependsOn = slices.Clone(f.DependsOn)
	return &c
}

// Push returns the change that starts f as a new in-progress child of the
// frame parentID ("" for a new root), owned by owner. The parent must be in
// progress: work is pushed from the frame being worked on. Returns EINVALID
// if f is invalid, ENOTFOUND if the parent or a dependency does not exist,
// and ECONFLICT if the parent is not in progress. Unfinished dependencies
// are a warning: pushing is an explicit decision.
func (t *FrameTree) Push(parentID string, f *Frame, owner string, now time.Time) (*FrameChange, error) {
	c := &FrameChange{}
	if parentID != "" {
		parent, err := t.find(parentID)
		if err != nil {
			return nil, err
		} else if parent.Status != FrameInProgress {
			return nil, Errorf(ECONFLICT, "Frame %s is %s; push under a frame in progress (activate it first).", parent.ID, parent.Status)
		}
		c.Guard = append(c.Guard, parent)
	}
	f = clone(f)
	f.ParentID, f.Status, f.Owner = parentID, FramePlanned, owner
	if err := t.checkNew(f, nil); err != nil {
		return nil, err
	}
	_ = f.transition(FrameInProgress, now)
	c.Warnings = t.unmet(f)
	c.Create = append(c.Create, f)
	return c, nil
}

// Plan returns the change that adds frames as planned children of the
// frame parentID ("" for planned roots). Frames of one plan may depend on
// each other by ID. The parent must be open: planned, in progress or
// blocked. Returns EINVALID if a frame is invalid or its dependencies form
// a cycle or name an ancestor, ENOTFOUND if the parent or a dependency does
// not exist, and ECONFLICT if the parent is finished.
func (t *FrameTree) Plan(parentID string, frames []*Frame) (*FrameChange, error) {
	c := &FrameChange{}
	if parentID != "" {
		parent, err := t.find(parentID)
		if err != nil {
			return nil, err
		} else if !parent.Status.Open() {
			return nil, Errorf(ECONFLICT, "Frame %s is %s; plan under an open frame.", parent.ID, parent.Status)
		}
		c.Guard = append(c.Guard, parent)
	}
	batch := make(map[string]*Frame)
	for _, f := range frames {
		if f.ID != "" {
			if batch[f.ID] != nil {
				return nil, Errorf(EINVALID, "Frame ID %s appears twice in the plan.", f.ID)
			}
			batch[f.ID] = f
		}
	}
	for _, f := range frames {
		f = clone(f)
		f.ParentID, f.Status = parentID, FramePlanned
		if err := t.checkNew(f, batch); err != nil {
			return nil, err
		}
		c.Create = append(c.Create, f)
	}
	if err := t.checkCycles(c.Create); err != nil {
		return nil, err
	}
	return c, nil
}

// Replan returns the change that edits a planned frame's identity and
// dependencies: the fields of edit that are set replace the frame's. Only a
// planned frame may change; once started its identity is fixed. Returns
// ENOTFOUND, EINVALID as [FrameTree.Plan] does, and ECONFLICT if the frame
// is no longer planned.
func (t *FrameTree) Replan(id string, edit Frame) (*FrameChange, error) {
	f, err := t.find(id)
	if err != nil {
		return nil, err
	} else if f.Status != FramePlanned {
		return nil, Errorf(ECONFLICT, "Frame %s is %s; only planned frames can be edited. Its identity is fixed once it starts.", f.ID, f.Status)
	}
	f = clone(f)
	if edit.Title != "" {
		f.Title = edit.Title
	}
	if edit.SuccessCriteria != "" {
		f.SuccessCriteria = edit.SuccessCriteria
	}
	if edit.SuccessCriteriaCompacted != "" {
		f.SuccessCriteriaCompacted = edit.SuccessCriteriaCompacted
	}
	if edit.DependsOn != nil {
		f.DependsOn = slices.Clone(edit.DependsOn)
	}
	if err := f.Validate(); err != nil {
		return nil, err
	} else if err := t.checkDeps(f, nil); err != nil {
		return nil, err
	} else if err := t.checkCycles([]*Frame{f}); err != nil {
		return nil, err
	}
	return &FrameChange{Update: []*Frame{f}}, nil
}

// checkNew validates a frame about to be created.
func (t *FrameTree) checkNew(f *Frame, batch map[string]*Frame) error {
	if err := f.Validate(); err != nil {
		return err
	} else if f.ID != "" && t.byID[f.ID] != nil {
		return Errorf(ECONFLICT, "Frame ID %s is taken.", f.ID)
	}
	return t.checkDeps(f, batch)
}

// checkDeps returns an error if a dependency of f does not exist or is one
// of its ancestors (which cannot finish before f does).
func (t *FrameTree) checkDeps(f *Frame, batch map[string]*Frame) error {
	for _, d := range f.DependsOn {
		if t.byID[d] == nil && batch[d] == nil {
			return Errorf(ENOTFOUND, "Frame %q depends on %q, which does not exist.", f.Title, d)
		}
		for p := f.ParentID; p != ""; {
			if p == d {
				return Errorf(EINVALID, "Frame %q cannot depend on its ancestor %s, which finishes after it.", f.Title, d)
			}
			if pf := t.byID[p]; pf != nil {
				p = pf.ParentID
			} else if pf := batch[p]; pf != nil {
				p = pf.ParentID
			} else {
				break
			}
		}
	}
	return nil
}

// checkCycles returns EINVALID if the dependencies of the tree with the
// frames of changed in place of (or beside) their stored versions form a
// cycle.
func (t *FrameTree) checkCycles(changed []*Frame) error {
	deps := make(map[string][]string, len(t.order)+len(changed))
	for _, f := range t.order {
		deps[f.ID] = f.DependsOn
	}
	for _, f := range changed {
		if f.ID != "" {
			deps[f.ID] = f.DependsOn
		}
	}
	const (
		visiting = 1
		done     = 2
	)
	state := make(map[string]int, len(deps))
	var visit func(id string, path []string) error
	visit = func(id string, path []string) error {
		switch state[id] {
		case visiting:
			return Errorf(EINVALID, "Dependencies form a cycle: %s.", strings.Join(append(path, id), " → "))
		case done:
			return nil
		}
		state[id] = visiting
		for _, d := range deps[id] {
			if err := visit(d, append(path, id)); err != nil {
				return err
			}
		}
		state[id] = done
		return nil
	}
	for _, f := range changed {
		if f.ID != "" {
			if err := visit(f.ID, nil); err != nil {
				return err
			}
		}
	}
	return nil
}

// unmet returns a warning for each dependency of f that is not completed.
func (t *FrameTree) unmet(f *Frame) []string {
	var out []string
	for _, d := range f.DependsOn {
		if df := t.byID[d]; df != nil && df.Status != FrameCompleted {
			out = append(out, "Frame "+f.ID+" depends on "+d+", which is "+string(df.Status)+".")
		}
	}
	return out
}

// Activate returns the change that puts a planned or blocked frame in
// progress, owned by owner, together with its planned ancestors: starting
// B1 starts B. Returns ENOTFOUND if the frame does not exist, and ECONFLICT
// if it is neither planned nor blocked or an ancestor is finished or
// blocked. A blocked frame resumes without results: what it was popped
// with said what it waited on. Unfinished dependencies are a warning; [FrameTree.Ready] lists
// only frames whose dependencies are complete.
func (t *FrameTree) Activate(id, owner string, now time.Time) (*FrameChange, error) {
	f, err := t.find(id)
	if err != nil {
		return nil, err
	}
	if f.Status != FramePlanned && f.Status != FrameBlocked {
		return nil, Errorf(ECONFLICT, "Frame %s is %s; only planned or blocked frames can be activated.", f.ID, f.Status)
	}
	c := &FrameChange{Warnings: t.unmet(f)}
	for _, a := range t.Ancestors(id) {
		switch a.Status {
		case FrameInProgress:
			c.Guard = append(c.Guard, a)
		case FramePlanned:
			a = clone(a)
			_ = a.transition(FrameInProgress, now)
			a.Owner = owner
			c.Update = append(c.Update, a)
		default:
			return nil, Errorf(ECONFLICT, "Frame %s is under %s, which is %s.", f.ID, a.ID, a.Status)
		}
	}
	f = clone(f)
	if f.Status == FrameBlocked {
		// What a blocked frame was popped with says what it waits on; once
		// it resumes that is no longer its result.
		f.Results, f.ResultsCompacted = "", ""
	}
	if err := f.transition(FrameInProgress, now); err != nil {
		return nil, err
	}
	f.Owner = owner
	c.Update = append(c.Update, f)
	return c, nil
}

// Pop returns the change that ends an in-progress frame with results: it
// becomes completed, failed or blocked. A blocked frame may also be popped
// as failed. Artifacts and decisions add to those recorded; results replace
// them when given. Returns ENOTFOUND if the frame does not exist, EINVALID
// for another status or a completion without results, and ECONFLICT if the
// frame cannot end now, has children in progress (pop them first) or would
// end with the very results its last-ended child was just popped with (a
// pop repeated by mistake).
// Planned children left behind are a warning.
func (t *FrameTree) Pop(id string, r FrameResults, now time.Time) (*FrameChange, error) {
	f, err := t.find(id)
	if err != nil {
		return nil, err
	}
	switch r.Status {
	case FrameCompleted, FrameFailed, FrameBlocked:
	default:
		return nil, Errorf(EINVALID, "A frame is popped as completed, failed or blocked, not %q.", r.Status)
	}
	c := &FrameChange{}
	for _, ch := range t.Children(id) {
		switch ch.Status {
		case FrameInProgress:
			return nil, Errorf(ECONFLICT, "Frame %s has child %s in progress; pop it first.", f.ID, ch.ID)
		case FramePlanned:
			if r.Status != FrameBlocked {
				c.Warnings = append(c.Warnings, "Planned child "+ch.ID+" ("+ch.Title+") was left; invalidate it if it is no longer needed.")
			}
		}
	}
	if last := t.lastEnded(id); last != nil && r.Results != "" && r.Results == last.Results {
		return nil, Errorf(ECONFLICT, "Frame %s's child %s was just popped with these same results; popping again would end %s with them too. To end %s, say what it accomplished.", f.ID, last.ID, f.ID, f.ID)
	}
	f = clone(f)
	if err := f.transition(r.Status, now); err != nil {
		return nil, err
	}
	if r.Results != "" {
		f.Results, f.ResultsCompacted = r.Results, r.ResultsCompacted
	} else if r.ResultsCompacted != "" {
		f.ResultsCompacted = r.ResultsCompacted
	}
	f.Artifacts = appendNew(f.Artifacts, r.Artifacts...)
	f.Decisions = appendNew(f.Decisions, r.Decisions...)
	if err := f.Validate(); err != nil {
		return nil, err
	}
	c.Update = append(c.Update, f)
	return c, nil
}

// lastEnded returns the child of id that ended last, or nil.
func (t *FrameTree) lastEnded(id string) *Frame {
	var last *Frame
	for _, ch := range t.Children(id) {
		if !ch.EndedAt.IsZero() && ch.Status != FrameInvalidated && (last == nil || ch.EndedAt.After(last.EndedAt)) {
			last = ch
		}
	}
	return last
}

// appendNew appends the values of vs not already in s.
func appendNew(s []string, vs ...string) []string {
	for _, v := range vs {
		if v != "" && !slices.Contains(s, v) {
			s = append(s, v)
		}
	}
	return s
}

// Invalidate returns the change that marks a frame no longer relevant. The
// invalidation cascades to every planned descendant; descendants in
// progress or blocked are left as they are, with a warning, because someone
// is working on them. Returns ENOTFOUND if the frame does not exist and
// ECONFLICT if it is already invalidated.
func (t *FrameTree) Invalidate(id string, now time.Time) (*FrameChange, error) {
	f, err := t.find(id)
	if err != nil {
		return nil, err
	}
	f = clone(f)
	if err := f.transition(FrameInvalidated, now); err != nil {
		return nil, err
	}
	c := &FrameChange{Update: []*Frame{f}}
	for _, d := range t.Descendants(id) {
		switch d.Status {
		case FramePlanned:
			d = clone(d)
			_ = d.transition(FrameInvalidated, now)
			c.Update = append(c.Update, d)
		case FrameInProgress, FrameBlocked:
			c.Warnings = append(c.Warnings, "Frame "+d.ID+" ("+d.Title+") is "+string(d.Status)+" under the invalidated "+id+"; pop or invalidate it.")
		}
	}
	return c, nil
}

// Ready returns the planned frames that an agent can start now, in tree
// order: frames without open children (a planned frame with planned
// children is started through them), whose dependencies and those of their
// planned ancestors are all completed, and whose ancestors are planned or in
// progress.
func (t *FrameTree) Ready() []*Frame {
	var out []*Frame
	for _, f := range t.order {
		if f.Status == FramePlanned && t.ready(f) {
			out = append(out, f)
		}
	}
	return out
}

func (t *FrameTree) ready(f *Frame) bool {
	for _, c := range t.Children(f.ID) {
		if c.Status != FrameInvalidated {
			return false
		}
	}
	if !t.depsDone(f) {
		return false
	}
	for _, a := range t.Ancestors(f.ID) {
		switch a.Status {
		case FrameInProgress:
		case FramePlanned:
			if !t.depsDone(a) {
				return false
			}
		default:
			return false
		}
	}
	return true
}

func (t *FrameTree) depsDone(f *Frame) bool {
	for _, d := range f.DependsOn {
		if df := t.byID[d]; df == nil || df.Status != FrameCompleted {
			return false
		}
	}
	return true
}

// Current returns the frame being worked on: of the in-progress frames
// owned by owner (any owner when owner is ""), those without an in-progress
// child of the same owner, the one started last. It returns nil if there is
// none.
func (t *FrameTree) Current(owner string) *Frame {
	var cur *Frame
	for _, f := range t.order {
		if f.Status != FrameInProgress || owner != "" && f.Owner != owner {
			continue
		}
		leaf := true
		for _, c := range t.Children(f.ID) {
			if c.Status == FrameInProgress && (owner == "" || c.Owner == owner) {
				leaf = false
				break
			}
		}
		if leaf && (cur == nil || !f.StartedAt.Before(cur.StartedAt)) {
			cur = f
		}
	}
	return cur
}

// ActiveAt returns the frame that was being worked on at time at: of the
// frames owned by owner (any owner when owner is "") that had started and
// not yet ended, the deepest, then the one started last. It returns nil if
// there is none. Inscription calls it to tag each round with its frame.
func (t *FrameTree) ActiveAt(owner string, at time.Time) *Frame {
	var cur *Frame
	var curDepth int
	for _, f := range t.order {
		if f.StartedAt.IsZero() || f.StartedAt.After(at) || !f.EndedAt.IsZero() && !at.Before(f.EndedAt) ||
			owner != "" && f.Owner != owner {
			continue
		}
		depth := len(t.Ancestors(f.ID))
		if cur == nil || depth > curDepth || depth == curDepth && !f.StartedAt.Before(cur.StartedAt) {
			cur, curDepth = f, depth
		}
	}
	return cur
}
