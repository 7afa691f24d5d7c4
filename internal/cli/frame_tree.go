package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// statusMark shows a frame's status at a glance.
func statusMark(s cairn.FrameStatus) string {
	switch s {
	case cairn.FramePlanned:
		return "[ ]"
	case cairn.FrameInProgress:
		return "[>]"
	case cairn.FrameCompleted:
		return "[x]"
	case cairn.FrameFailed:
		return "[!]"
	case cairn.FrameBlocked:
		return "[-]"
	case cairn.FrameInvalidated:
		return "[~]"
	}
	return ""
}

func (m *Main) runTree(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("tree", "[flags]", `
Print the frame tree, one frame a line:

  [x] done  [>] in progress  [ ] planned  [!] failed  [-] blocked  [~] invalidated

The current frame is marked with "←", an in-progress frame's owner with
"@", and the session that pushed or planned a frame with "session"
and the first 8 characters of its id (--json gives it whole, as
session_id). Invalidated frames are hidden unless --all is given.

Examples:
  cairn tree
  cairn tree --all --artifacts
  cairn tree --json`)
	ff.register(m, fs)
	all := fs.Bool("all", false, "show invalidated frames too")
	artifacts := fs.Bool("artifacts", false, "list each frame's artifacts")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	st, err := m.readStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	tree, err := st.stack().Tree(ctx)
	if err != nil {
		return err
	}
	if ff.json {
		return json.NewEncoder(m.Stdout).Encode(map[string]any{"frames": orEmpty(tree.Frames())})
	}
	if tree.Len() == 0 {
		fmt.Fprintln(m.Stdout, `No frames yet. Start one with: cairn push "TITLE" --criteria "what done means"`)
		return nil
	}
	cur := tree.Current(ff.owner)
	hidden := make(map[string]bool)
	tree.Walk(func(f *cairn.Frame, depth int) {
		if hidden[f.ParentID] || !*all && f.Status == cairn.FrameInvalidated {
			hidden[f.ID] = true
			return
		}
		var extra []string
		if f.Owner != "" && f.Status == cairn.FrameInProgress {
			extra = append(extra, "@"+f.Owner)
		}
		if f.SessionID != "" {
			extra = append(extra, "session "+shortID(f.SessionID))
		}
		if len(f.DependsOn) > 0 {
			extra = append(extra, "after "+strings.Join(f.DependsOn, ","))
		}
		if cur != nil && f.ID == cur.ID {
			extra = append(extra, "←")
		}
		fmt.Fprintf(m.Stdout, "%s%s %s  %s  %s\n", strings.Repeat("  ", depth), statusMark(f.Status), f.ID, f.Title, strings.Join(extra, " "))
		if *artifacts {
			for _, a := range f.Artifacts {
				fmt.Fprintf(m.Stdout, "%s      %s\n", strings.Repeat("  ", depth), a)
			}
		}
	})
	return nil
}
