package cairn

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"sync"
	"time"
	"unicode/utf8"
)

// A FrameStatus is where a frame is in its lifecycle.
type FrameStatus string

// Frame statuses. A frame starts planned (sketched ahead) or in progress
// (pushed); it ends completed, failed or blocked when popped; invalidated
// means no longer relevant. See [CanTransition] for the moves between them.
const (
	FramePlanned     FrameStatus = "planned"
	FrameInProgress  FrameStatus = "in_progress"
	FrameCompleted   FrameStatus = "completed"
	FrameFailed      FrameStatus = "failed"
	FrameBlocked     FrameStatus = "blocked"
	FrameInvalidated FrameStatus = "invalidated"
)

// FrameStatuses lists every status in lifecycle order.
var FrameStatuses = []FrameStatus{FramePlanned, FrameInProgress, FrameCompleted, FrameFailed, FrameBlocked, FrameInvalidated}

// transitions is the lifecycle: the statuses a frame with status from may
// move to, and whether from is a status at all. (A switch, not a map: a
// map literal is built by every process at start, whatever it runs.)
func transitions(from FrameStatus) (to []FrameStatus, known bool) {
	switch from {
	case FramePlanned:
		return []FrameStatus{FrameInProgress, FrameInvalidated}, true
	case FrameInProgress:
		return []FrameStatus{FrameCompleted, FrameFailed, FrameBlocked, FrameInvalidated}, true
	case FrameBlocked:
		return []FrameStatus{FrameInProgress, FrameFailed, FrameInvalidated}, true
	case FrameCompleted, FrameFailed:
		return []FrameStatus{FrameInvalidated}, true
	case FrameInvalidated:
		return nil, true
	}
	return nil, false
}

// CanTransition reports whether a frame may move from one status to another:
//
//	planned     → in_progress (activate, claim) | invalidated
//	in_progress → completed | failed | blocked (pop) | invalidated
//	blocked     → in_progress (activate again) | failed (pop) | invalidated
//	completed   → invalidated
//	failed      → invalidated
//	invalidated → nothing: it is final
//
// A failed frame is not retried in place, because its identity and results
// are a record; push or plan a new frame instead.
func CanTransition(from, to FrameStatus) bool {
	next, _ := transitions(from)
	return slices.Contains(next, to)
}

// Valid reports whether s is a known status.
func (s FrameStatus) Valid() bool { _, ok := transitions(s); return ok }

// Open reports whether work on a frame with status s is unfinished: it is
// planned, in progress or blocked.
func (s FrameStatus) Open() bool {
	return s == FramePlanned || s == FrameInProgress || s == FrameBlocked
}

// A Frame is one node of the task tree: a unit of work with its own goal,
// success criteria and results.
//
// Title and success criteria are the frame's identity: they are fixed when
// it is pushed, and may be edited only while it is still planned (plans are
// mutable, commitments are not). Results, artifacts and decisions are what
// it hands to its parent and siblings when it is popped.
type Frame struct {
	// ID is short and stable ("f12", or one chosen at creation such as
	// "auth"); ParentID is "" for a root frame.
	ID       string `json:"id"`
	ParentID string `json:"parent,omitempty"`

	Title                    string `json:"title"`
	SuccessCriteria          string `json:"success_criteria"`
	SuccessCriteriaCompacted string `json:"success_criteria_compacted,omitempty"`

	Status FrameStatus `json:"status"`

	Results          string   `json:"results,omitempty"`
	ResultsCompacted string   `json:"results_compacted,omitempty"`
	Artifacts        []string `json:"artifacts,omitempty"` // files or resources produced
	Decisions        []string `json:"decisions,omitempty"`

	// DependsOn names frames that must complete before this one is ready.
	DependsOn []string `json:"depends_on,omitempty"`

	// Owner is who activated the frame: an agent or person's name, "" if
	// unnamed. Claiming sets it.
	Owner string `json:"owner,omitempty"`

	// SessionID is the session that created the frame, by pushing or
	// planning it: a Claude Code session's uuid, or the name given as
	// --session or $CAIRN_SESSION; "" when none was known. It is written
	// once, with the frame, and never changes: activating or claiming a
	// planned frame later sets Owner, not SessionID, so a session's frames
	// (what "cairn recover SESSION" lists) are the ones it decided on.
	SessionID string `json:"session_id,omitempty"`

	// Version counts writes; a write must carry the version it read, so
	// two agents never both change a frame from the same state.
	Version int `json:"version"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	StartedAt time.Time `json:"started_at,omitzero"` // when it went in progress
	EndedAt   time.Time `json:"ended_at,omitzero"`   // when it was popped or invalidated
}

// Limits on a frame's fields. A title names the work in a few words; the
// criteria say what done means in a paragraph or two.
const (
	MaxFrameIDLen    = 64
	MaxFrameTitleLen = 120 // runes
)

var frameIDPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`) })

// ValidFrameID reports whether id may name a frame: letters, digits, '.',
// '_' and '-', starting with a letter or digit.
func ValidFrameID(id string) bool {
	return len(id) <= MaxFrameIDLen && frameIDPattern().MatchString(id)
}

// Validate returns an EINVALID error if f lacks what every stored frame
// needs. An ID may be empty before the store assigns one.
func (f *Frame) Validate() error {
	switch {
	case f.ID != "" && !ValidFrameID(f.ID):
		return Errorf(EINVALID, "Frame ID %q must be letters, digits, '.', '_' or '-', at most %d characters.", f.ID, MaxFrameIDLen)
	case f.ID != "" && f.ID == f.ParentID:
		return Errorf(EINVALID, "Frame %s cannot be its own parent.", f.ID)
	case f.Title == "":
		return Errorf(EINVALID, "Frame title required.")
	case utf8.RuneCountInString(f.Title) > MaxFrameTitleLen:
		return Errorf(EINVALID, "Frame title is %d characters; keep it under %d (a few words).", utf8.RuneCountInString(f.Title), MaxFrameTitleLen)
	case f.SuccessCriteria == "":
		return Errorf(EINVALID, "Frame %q needs success criteria: what done means, in verifiable terms.", f.Title)
	case !f.Status.Valid():
		return Errorf(EINVALID, "Frame status %q is not one of %v.", f.Status, FrameStatuses)
	case f.Status == FrameCompleted && f.Results == "":
		return Errorf(EINVALID, "Frame %s is completed without results: say what was accomplished.", f.ID)
	}
	for _, d := range f.DependsOn {
		if d == f.ID && d != "" {
			return Errorf(EINVALID, "Frame %s cannot depend on itself.", f.ID)
		}
	}
	return nil
}

// CriteriaCompacted returns the compacted success criteria, or the full
// criteria when none were given.
func (f *Frame) CriteriaCompacted() string {
	if f.SuccessCriteriaCompacted != "" {
		return f.SuccessCriteriaCompacted
	}
	return f.SuccessCriteria
}

// Compacted returns the compacted results, or the full results when none
// were given.
func (f *Frame) Compacted() string {
	if f.ResultsCompacted != "" {
		return f.ResultsCompacted
	}
	return f.Results
}

// transition moves f to status to at now, or returns ECONFLICT if the
// lifecycle forbids it.
func (f *Frame) transition(to FrameStatus, now time.Time) error {
	if !CanTransition(f.Status, to) {
		return Errorf(ECONFLICT, "Frame %s is %s; it cannot become %s.", f.ID, f.Status, to)
	}
	f.Status = to
	switch to {
	case FrameInProgress:
		if f.StartedAt.IsZero() {
			f.StartedAt = now
		}
		f.EndedAt = time.Time{}
	case FrameCompleted, FrameFailed, FrameBlocked, FrameInvalidated:
		f.EndedAt = now
	}
	return nil
}

// FrameResults are what a popped frame hands to its parent and siblings.
type FrameResults struct {
	Status           FrameStatus // completed, failed or blocked
	Results          string
	ResultsCompacted string
	Artifacts        []string // added to those already recorded
	Decisions        []string // added to those already recorded
}

// A FrameChange is a set of frame writes that a [FrameStore] applies
// atomically, or not at all.
type FrameChange struct {
	Create []*Frame // new frames; an empty ID is assigned by the store
	Update []*Frame // changed frames, each carrying the Version it was read at

	// Guard holds frames that are not written but must not have changed
	// since they were read: the parent a child is pushed under.
	Guard []*Frame

	// Warnings are for the caller to show; they are not stored.
	Warnings []string
}

// A RoundRef names one round of one session.
type RoundRef struct {
	SessionID string `json:"session_id"`
	Seq       int    `json:"seq"`
}

// String returns "session#seq".
func (r RoundRef) String() string { return fmt.Sprintf("%s#%d", r.SessionID, r.Seq) }

// FrameStore keeps the frame tree. It is plain storage: the lifecycle
// rules live in [FrameTree] and [Stack].
type FrameStore interface {
	// FindFrameByID returns one frame. Returns ENOTFOUND if none has id.
	FindFrameByID(ctx context.Context, id string) (*Frame, error)

	// FindFrames returns every frame, parents before children and siblings
	// in the order they were created.
	FindFrames(ctx context.Context) ([]*Frame, error)

	// ApplyFrameChange writes c in one transaction. It assigns IDs to new
	// frames that lack one, stamps CreatedAt and UpdatedAt and increments
	// Version of every frame written, updating c's frames in place. A
	// frame's ParentID and SessionID are written when it is created; an
	// update leaves them as they are.
	// Returns EINVALID if a frame fails [Frame.Validate], ENOTFOUND if an
	// updated or guarded frame or a new frame's parent does not exist, and
	// ECONFLICT if a new frame's ID is taken or an updated or guarded
	// frame's Version is not the stored one (someone else changed it).
	ApplyFrameChange(ctx context.Context, c *FrameChange) error

	// TagFrameRounds records that rounds belong to the frame: a frame's
	// log is its rounds. Tagging a round again moves it to the new frame;
	// an empty frameID removes the tag. Returns ENOTFOUND if the frame
	// does not exist. [RoundFilter.FrameID] lists a frame's rounds.
	TagFrameRounds(ctx context.Context, frameID string, rounds []RoundRef) error
}
