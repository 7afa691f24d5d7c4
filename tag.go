package cairn

import "context"

// TagStore writes the engagement tags of rounds. Tags live in the index,
// never in the block store, and are mutable: tagging a round again replaces
// its engagement.
type TagStore interface {
	// TagRounds sets the engagement of a session's rounds seqs to
	// engagementID and, when frameID is not empty, their frame. Returns
	// ENOTFOUND if the session or one of the rounds does not exist and
	// EINVALID for an empty engagement ID.
	TagRounds(ctx context.Context, sessionID string, seqs []int, engagementID, frameID string) error

	// UntagRounds clears the engagement of a session's rounds seqs; their
	// frame stays. Rounds without a tag are left as they are. Returns
	// ENOTFOUND if the session does not exist.
	UntagRounds(ctx context.Context, sessionID string, seqs []int) error
}
