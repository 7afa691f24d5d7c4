package loop

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/opencode"
)

// opencodeLog brings the log of an opencode session up to date from
// opencode's data folder (ev.Transcript: its store, or its storage
// files) in [Loop.OpencodeLogs], as `cairn import --session` does, and
// returns the log's path, which the import then reads; "" when opencode
// has written nothing of the session yet.
func (l *Loop) opencodeLog(ctx context.Context, ev Event) (string, error) {
	if ev.Transcript == "" || l.OpencodeLogs == "" {
		return "", cairn.Errorf(cairn.EINVALID, "The opencode plugin's input names no data folder, or no folder for opencode's logs is known.")
	}
	if ev.Session == "" {
		return "", cairn.Errorf(cairn.EINVALID, "The opencode plugin's input names no session.")
	}
	return opencode.MirrorSession(ctx, ev.Transcript, l.OpencodeLogs, ev.Session)
}

// opencodePressure is an opencode prompt's pressure note: when the
// context opencode counted at its last reply has crossed a threshold of
// .cairn/config since the last prompt, the figure at opencode's own
// compaction point, for the agent, and the figure for the person.
func (l *Loop) opencodePressure(_ context.Context, in Event) (Reply, error) {
	return l.measuredPressure(in, "opencode", fmt.Sprintf("At 100%% opencode summarizes it, lossily; every round stays in cairn's store, each one cairn inject %s ROUND away.", in.Session))
}

// opencodeCompact is opencode's compaction's eve: the session inscribed
// whole before the summary replaces it, and a line for the compaction's
// prompt (experimental.session.compacting), so that the summary tells the
// agent after it where the rounds it no longer holds are.
func (l *Loop) opencodeCompact(ctx context.Context, in Event) (Reply, error) {
	last, err := l.Inscribe(ctx, in)
	if err != nil || last == nil {
		return Reply{}, err
	}
	return Reply{Agent: fmt.Sprintf("Keep this line in the summary: every round of this conversation (%d so far) is kept in cairn's store as session %s; cairn search finds what the summary leaves out, and cairn inject %s ROUND gives a round back whole.",
		last.Seq, last.SessionID, last.SessionID)}, nil
}
