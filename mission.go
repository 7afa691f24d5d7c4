package cairn

import (
	"context"
	"time"
	"unicode/utf8"
)

// A Mission is what a workspace's agents are for, and the phase they are
// in. Its core (mission, phase, task, workspace) is about 2,000 characters
// and is enough for an agent to work from; what earlier phases produced
// lives in files, listed rather than carried.
type Mission struct {
	Text      string `json:"mission"`
	Workspace string `json:"workspace,omitempty"`

	// Progress is a compact summary of the work done, at most
	// [MaxProgressLen] characters: past memory belongs in files.
	Progress string `json:"progress,omitempty"`

	// Phase is the current phase, nil before the first.
	Phase *Phase `json:"phase,omitempty"`

	UpdatedAt time.Time `json:"updated_at"`
}

// The mission's plain files at a workspace's root (seed 004's layout):
// mission.json holds the mission, its status and current phase;
// mission_progress.txt the compact summary of the work done. cairn keeps
// them in step with the store, and reads a person's edits back.
const (
	MissionFile         = "mission.json"
	MissionProgressFile = "mission_progress.txt"
)

// Limits that keep the core small.
const (
	MaxMissionLen  = 1000
	MaxProgressLen = 500
	MaxTaskLen     = 600
)

// Phase reasons: why a phase began.
const (
	PhaseStart    = "start"    // the first phase
	PhaseNext     = "next"     // the previous phase completed
	PhaseRecovery = "recovery" // the context ran out; the phase restarts from its boundary
)

// A Phase is one stage of a mission. Its outputs are files: what the
// previous stage produced, which the new one reads on demand.
type Phase struct {
	Seq       int       `json:"seq"` // 1 for the first
	Name      string    `json:"name"`
	Task      string    `json:"task"`
	Outputs   []string  `json:"outputs,omitempty"` // files the earlier phases produced
	Reason    string    `json:"reason"`
	StartedAt time.Time `json:"started_at"`
}

// Validate returns EINVALID if m lacks a mission or is too long to stay a
// core.
func (m *Mission) Validate() error {
	switch {
	case m.Text == "":
		return Errorf(EINVALID, "Mission text required: one or two sentences on what the work is for.")
	case utf8.RuneCountInString(m.Text) > MaxMissionLen:
		return Errorf(EINVALID, "The mission is %d characters; keep it under %d (details belong in files).", utf8.RuneCountInString(m.Text), MaxMissionLen)
	case utf8.RuneCountInString(m.Progress) > MaxProgressLen:
		return Errorf(EINVALID, "Progress is %d characters; keep it under %d: a summary, with details in files.", utf8.RuneCountInString(m.Progress), MaxProgressLen)
	}
	return nil
}

// Validate returns EINVALID if p lacks a name or task.
func (p *Phase) Validate() error {
	switch {
	case p.Name == "":
		return Errorf(EINVALID, "Phase name required.")
	case p.Task == "":
		return Errorf(EINVALID, "Phase %s needs a task: what the agent should do in it.", p.Name)
	case utf8.RuneCountInString(p.Task) > MaxTaskLen:
		return Errorf(EINVALID, "The task is %d characters; keep it under %d.", utf8.RuneCountInString(p.Task), MaxTaskLen)
	case p.Reason != PhaseStart && p.Reason != PhaseNext && p.Reason != PhaseRecovery:
		return Errorf(EINVALID, "Phase reason %q is not start, next or recovery.", p.Reason)
	}
	return nil
}

// NextPhase returns the phase that follows m's current one: name and task
// as given (the current ones when empty, for a recovery), outputs added to
// those of earlier phases. Phase transition and recovery from context
// exhaustion are the same move: the next agent starts from the core and
// the index, and reads the outputs only if it needs them. Returns EINVALID
// if the phase is incomplete.
func NextPhase(m *Mission, name, task string, outputs []string, reason string) (*Phase, error) {
	p := &Phase{Seq: 1, Name: name, Task: task, Reason: reason}
	if cur := m.Phase; cur != nil {
		p.Seq = cur.Seq + 1
		p.Outputs = append(p.Outputs, cur.Outputs...)
		if p.Name == "" {
			p.Name = cur.Name
		}
		if p.Task == "" {
			p.Task = cur.Task
		}
	} else if reason == PhaseNext {
		p.Reason = PhaseStart
	}
	p.Outputs = appendNew(p.Outputs, outputs...)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return p, nil
}

// MissionStore keeps the workspace's mission and its phases.
type MissionStore interface {
	// FindMission returns the mission with its current phase. Returns
	// ENOTFOUND if none was set.
	FindMission(ctx context.Context) (*Mission, error)

	// SetMission sets the mission text, workspace and progress, keeping
	// the phases. Returns EINVALID if m fails [Mission.Validate].
	SetMission(ctx context.Context, m *Mission) error

	// AddPhase records p as the current phase, setting its StartedAt.
	// Returns ENOTFOUND if no mission was set and EINVALID if p fails
	// [Phase.Validate].
	AddPhase(ctx context.Context, p *Phase) error

	// FindPhases returns every phase, first first.
	FindPhases(ctx context.Context) ([]*Phase, error)
}
