package mcp

import (
	"context"

	"github.com/cairn-dev/cairn/surgery"
)

// collapseNote says, after a pop, how much context collapsing the popped
// frame's rounds in this session would free and the command that does
// it; "" when the frame is not finished or has no rounds here.
func (s *Server) collapseNote(ctx context.Context, id string) string {
	f, err := s.Frames.FindFrameByID(ctx, id)
	if err != nil || !surgery.Finished(f) {
		return ""
	}
	session := ""
	if s.Workspace != nil {
		session = s.Workspace.Session
	}
	c, err := surgery.CollapseOf(ctx, surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines}, session, id)
	if err != nil || c == nil {
		return ""
	}
	return c.String() + "\n"
}
