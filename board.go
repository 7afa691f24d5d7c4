package cairn

import "time"

// A situation is a folder that holds a board.md and an index.md. The board
// says what is happening there and carries messages between agents; the
// index says what exists there. Both are plain markdown that anyone edits;
// cairn only appends checkpoints to the board.

// A Board is a situation's board.md as cairn reads it: the whole text, and
// the checkpoints found in its "## Checkpoints" section.
type Board struct {
	Situation   string
	Text        string
	Checkpoints []*Checkpoint
}

// Last returns the board's most recent checkpoint, or nil.
func (b *Board) Last() *Checkpoint {
	if len(b.Checkpoints) == 0 {
		return nil
	}
	return b.Checkpoints[len(b.Checkpoints)-1]
}

// A Checkpoint is what an actor wrote on a board before leaving: what it
// did and what comes next.
type Checkpoint struct {
	Time    time.Time
	Session string
	Done    string
	Next    string
	// Auto says why cairn wrote it on its own (a session's end, its
	// context running out); "" for one a person or an agent wrote. A
	// board keeps the last [AutoCheckpoints] of these, one per session.
	Auto string
}

// AutoCheckpoints is how many automatic checkpoints a board keeps: each
// session's latest, the last few sessions'. The board is part of the
// context SessionStart gives, so it must not grow with every session end.
const AutoCheckpoints = 5

// BoardStore reads boards and writes checkpoints.
type BoardStore interface {
	// FindBoard returns a situation's board. A situation without board.md
	// has an empty board. Returns ENOTFOUND if the situation's folder does
	// not exist.
	FindBoard(situation string) (*Board, error)

	// Checkpoint appends c to the situation's board, creating board.md if
	// needed; everything else in the file is kept as it is.
	Checkpoint(situation string, c *Checkpoint) error
}
