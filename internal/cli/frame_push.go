package cli

import (
	"context"

	"github.com/cairn-dev/cairn"
)

func (m *Main) runPush(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("push", "[flags] TITLE", `
Start a subtask: push a new frame, in progress, under the frame you are
working on (your current frame), or under --parent. The title names the
work in a few words; the success criteria say what done means, in terms
someone can check. Both are fixed from now on.

Push when the work could be retried as a unit, touches different files or
concepts, or deserves its own summary. Pop it with results when done.

The frame records the session that pushed it (--session, else
$CAIRN_SESSION, else $CLAUDE_CODE_SESSION_ID): "cairn tree" shows it and
"cairn recover SESSION" lists the session's frames.

Examples:
  cairn push "User authentication" --criteria "sign up, log in, log out; sessions survive restarts"
  cairn push "Build the app" --root --criteria "auth + API + staging deploy" --id app
  cairn push "Pagination" --parent api --criteria "cursor pagination, limit <= 100" --depends crud`)
	ff.register(m, fs)
	criteria := fs.String("criteria", "", "what done means, in verifiable terms (required)")
	compact := fs.String("compact", "", "a dense version of the criteria for context display")
	parent := fs.String("parent", "", "the parent frame (default: your current frame)")
	root := fs.Bool("root", false, "start a new root frame")
	id := fs.String("id", "", "the frame's ID (default: assigned, f1, f2, …)")
	var deps listFlag
	fs.Var(&deps, "depends", "frames that must complete first (repeat or comma-separate)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("push takes one TITLE")
	}
	st, err := m.openStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	parentID := *parent
	if parentID == "" && !*root {
		switch cur, err := st.stack().Current(ctx, ff.owner); cairn.ErrorCode(err) {
		case "":
			parentID = cur.ID
		case cairn.ENOTFOUND: // nothing in progress: a new root
		default:
			return err
		}
	}
	f := &cairn.Frame{ID: *id, Title: fs.Arg(0), SuccessCriteria: *criteria, SuccessCriteriaCompacted: *compact, DependsOn: deps,
		SessionID: m.knownSession(ff.session)}
	c, err := st.stack().Push(ctx, parentID, f, ff.owner)
	if err != nil {
		return err
	}
	return m.printChange(ff.json, "pushed", c)
}
