package http

import (
	"context"
	"fmt"
	"net/http"

	"cairn"
)

// DefaultMaxSessionBlocks is how many blocks a session may have for the
// viewer to measure its retention or cut it (split, extract, revive):
// those read every block of it at once, which a session with a message of
// a million blocks made take 93.5 s and 1.97 GB (retention) and 23.2 s
// and 1.38 GB (a revive's preview). The CLI does it without the bound.
const DefaultMaxSessionBlocks = 200_000

// tooLarge answers 413 and reports true when session id has more than
// [Server.MaxSessionBlocks] blocks, counted a round at a time from each
// round's first page (one block), so that a session too large costs no
// more to refuse than a page of each round.
func (s *Server) tooLarge(w http.ResponseWriter, r *http.Request, what, command string) bool {
	if s.MaxSessionBlocks <= 0 {
		return false
	}
	n, err := s.countBlocks(r.Context(), r.PathValue("id"), s.MaxSessionBlocks)
	if err != nil {
		Error(w, r, err)
		return true
	}
	if n <= s.MaxSessionBlocks {
		return false
	}
	writeJSON(w, http.StatusRequestEntityTooLarge, &ErrorResponse{Error: fmt.Sprintf(
		"This session has more than %d blocks, more than the viewer %s at once: use the CLI, %s.", s.MaxSessionBlocks, what, command)})
	return true
}

// countBlocks counts the blocks of a session's rounds, stopping once past
// limit.
func (s *Server) countBlocks(ctx context.Context, id string, limit int) (int, error) {
	sess, err := s.Sessions.FindSessionByID(ctx, id)
	if err != nil {
		return 0, err
	}
	rounds, err := s.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, rd := range rounds {
		_, total, err := s.Rounds.FindRoundPage(ctx, sess.ID, rd.Seq, cairn.BlockPage{Limit: 1, Bytes: 1})
		if err != nil {
			return 0, err
		}
		if n += total; n > limit {
			break
		}
	}
	return n, nil
}
