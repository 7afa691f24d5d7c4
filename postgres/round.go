package postgres

import (
	"context"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
)

// RoundStore implements [cairn.RoundStore].
type RoundStore struct{ db *DB }

// NewRoundStore returns a RoundStore over db.
func NewRoundStore(db *DB) *RoundStore { return &RoundStore{db: db} }

var _ cairn.RoundStore = (*RoundStore)(nil)

// FindRound implements [cairn.RoundStore].
func (s *RoundStore) FindRound(ctx context.Context, sessionID string, seq int) (_ *cairn.Round, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rounds, err := findRounds(ctx, tx, cairn.RoundFilter{SessionID: sessionID, FromSeq: seq, ToSeq: seq, WithBlocks: true})
	if err != nil {
		return nil, err
	} else if len(rounds) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", sessionID, seq)
	}
	return rounds[0], nil
}

// FindRounds implements [cairn.RoundStore].
func (s *RoundStore) FindRounds(ctx context.Context, filter cairn.RoundFilter) (_ []*cairn.Round, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	return findRounds(ctx, tx, filter)
}

// CountRounds implements [cairn.RoundStore].
func (s *RoundStore) CountRounds(ctx context.Context, filter cairn.RoundFilter) (_ int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback(ctx)
	q := roundWhere(filter)
	var n int
	err = tx.QueryRow(ctx, `SELECT COUNT(*) FROM rounds r LEFT JOIN round_tags t ON t.session_id = r.session_id AND t.seq = r.seq
		`+q.cond(), q.args...).Scan(&n)
	return n, err
}

// roundWhere returns the conditions of f on rounds r and their tags t.
func roundWhere(f cairn.RoundFilter) *query {
	var q query
	if f.SessionID != "" {
		q.where("r.session_id = ?", f.SessionID)
	}
	if f.EngagementID != "" {
		q.where("t.engagement_id = ? AND t.engagement_id != ''", f.EngagementID) // the partial index's condition, so it serves
	}
	if f.FrameID != "" {
		q.where("t.frame_id = ? AND t.frame_id != ''", f.FrameID) // the partial index's condition, so it serves
	}
	if f.Tagged {
		q.where("t.engagement_id != ''")
	}
	if f.FromSeq > 0 {
		q.where("r.seq >= ?", f.FromSeq)
	}
	if f.ToSeq > 0 {
		q.where("r.seq <= ?", f.ToSeq)
	}
	if !f.Since.IsZero() {
		q.where("r.started_at >= ?", f.Since)
	}
	if !f.Until.IsZero() {
		q.where("(r.started_at IS NULL OR r.started_at < ?)", f.Until)
	}
	return &q
}

func findRounds(ctx context.Context, tx *Tx, f cairn.RoundFilter) ([]*cairn.Round, error) {
	q := roundWhere(f)
	// Tool calls are counted from the partial index blocks_tool_use (its
	// WHERE repeated, so the index serves it): no block is read.
	calls := "0"
	if f.ToolCalls {
		calls = `(SELECT COUNT(*) FROM blocks b WHERE b.session_id = r.session_id AND b.round_seq = r.seq AND b.kind = 'tool-use' AND NOT b.sidechain)`
	}
	order := " ORDER BY r.session_id, r.seq"
	if f.Last > 0 {
		order = " ORDER BY r.session_id DESC, r.seq DESC" + q.arg(" LIMIT ?", f.Last)
	}
	rows, err := tx.Query(ctx, `
		SELECT r.session_id, r.seq, r.started_at, r.ended_at, r.first_line, r.last_line, r.user_preview, r.agent_preview,
			r.tools, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_creation_tokens,
			COALESCE(t.engagement_id, ''), COALESCE(t.frame_id, ''), `+calls+`
		FROM rounds r LEFT JOIN round_tags t ON t.session_id = r.session_id AND t.seq = r.seq
		`+q.cond()+order, q.args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Round
	for rows.Next() {
		var r cairn.Round
		var tools string
		if err := rows.Scan(&r.SessionID, &r.Seq, scanTime{&r.StartedAt}, scanTime{&r.EndedAt}, &r.FirstLine, &r.LastLine,
			&r.UserPreview, &r.AgentPreview, &tools, &r.Usage.Input, &r.Usage.Output, &r.Usage.CacheRead, &r.Usage.CacheCreation,
			&r.EngagementID, &r.FrameID, &r.ToolCalls); err != nil {
			return nil, err
		}
		if tools != "" {
			r.Tools = strings.Split(tools, toolSep)
		}
		out = append(out, &r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if f.Last > 0 {
		slices.Reverse(out)
	}
	if f.WithBlocks && f.SessionID != "" && len(out) > 1 {
		// One query for a session's range of rounds, not one per round.
		if err := findRangeBlocks(ctx, tx, f.SessionID, out); err != nil {
			return nil, err
		}
	} else if f.WithBlocks {
		for _, r := range out {
			if r.Blocks, err = findBlocks(ctx, tx, r.SessionID, r.Seq); err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// findRangeBlocks loads the blocks of rounds of one session, in seq order.
func findRangeBlocks(ctx context.Context, tx *Tx, sessionID string, rounds []*cairn.Round) error {
	bySeq := make(map[int]*cairn.Round, len(rounds))
	for _, r := range rounds {
		bySeq[r.Seq] = r
	}
	rows, err := tx.Query(ctx, `
		SELECT round_seq, id, line_no, idx, role, kind, timestamp, content, tool_name, tool_id, agent_id, is_error, sidechain, message_id
		FROM blocks WHERE session_id = $1 AND round_seq >= $2 AND round_seq <= $3 ORDER BY round_seq, line_no, idx`,
		sessionID, rounds[0].Seq, rounds[len(rounds)-1].Seq)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		b := cairn.Block{SessionID: sessionID}
		if err := rows.Scan(&b.RoundSeq, &b.ID, &b.LineNo, &b.Index, &b.Role, &b.Kind, scanTime{&b.Timestamp}, &b.Content, &b.ToolName,
			&b.ToolID, &b.AgentID, &b.IsError, &b.Sidechain, &b.MessageID); err != nil {
			return err
		}
		if r := bySeq[b.RoundSeq]; r != nil {
			r.Blocks = append(r.Blocks, &b)
		}
	}
	return rows.Err()
}

// toolSep joins tool names in one column; it never occurs in a tool name.
const toolSep = "\x1f"

func findBlocks(ctx context.Context, tx *Tx, sessionID string, seq int) ([]*cairn.Block, error) {
	rows, err := tx.Query(ctx, `
		SELECT id, line_no, idx, role, kind, timestamp, content, tool_name, tool_id, agent_id, is_error, sidechain, message_id
		FROM blocks WHERE session_id = $1 AND round_seq = $2 ORDER BY line_no, idx`, sessionID, seq)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Block
	for rows.Next() {
		b := cairn.Block{SessionID: sessionID, RoundSeq: seq}
		if err := rows.Scan(&b.ID, &b.LineNo, &b.Index, &b.Role, &b.Kind, scanTime{&b.Timestamp}, &b.Content, &b.ToolName,
			&b.ToolID, &b.AgentID, &b.IsError, &b.Sidechain, &b.MessageID); err != nil {
			return nil, err
		}
		out = append(out, &b)
	}
	return out, rows.Err()
}

// FindRoundPage implements [cairn.RoundStore]: the page's block ids first
// (in id order, which is round order: an import inserts a round's blocks
// all at once and in order), then those blocks, each content read no
// further than the page's byte limit.
func (s *RoundStore) FindRoundPage(ctx context.Context, sessionID string, seq int, page cairn.BlockPage) (_ *cairn.Round, total int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback(ctx)
	rounds, err := findRounds(ctx, tx, cairn.RoundFilter{SessionID: sessionID, FromSeq: seq, ToSeq: seq})
	if err != nil {
		return nil, 0, err
	} else if len(rounds) == 0 {
		return nil, 0, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", sessionID, seq)
	}
	r := rounds[0]
	if err := tx.QueryRow(ctx, `SELECT COUNT(*) FROM blocks WHERE session_id = $1 AND round_seq = $2`, sessionID, seq).Scan(&total); err != nil {
		return nil, 0, err
	}
	if page.Limit <= 0 || page.From >= total {
		return r, total, nil
	}
	rows, err := tx.Query(ctx, `
		SELECT b.id, b.line_no, b.idx, b.role, b.kind, b.timestamp, substr(b.content, 1, $3), octet_length(b.content), b.tool_name,
			b.tool_id, b.agent_id, b.is_error, b.sidechain, b.message_id
		FROM blocks b WHERE b.id IN (
			SELECT id FROM blocks WHERE session_id = $1 AND round_seq = $2 ORDER BY id LIMIT $4 OFFSET $5)
		ORDER BY b.id`, sessionID, seq, max(page.Bytes, 0), page.Limit, max(page.From, 0))
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	r.Blocks = []*cairn.Block{}
	size := 0
	for rows.Next() {
		b := cairn.Block{SessionID: sessionID, RoundSeq: seq}
		var n int
		if err := rows.Scan(&b.ID, &b.LineNo, &b.Index, &b.Role, &b.Kind, scanTime{&b.Timestamp}, &b.Content, &n, &b.ToolName,
			&b.ToolID, &b.AgentID, &b.IsError, &b.Sidechain, &b.MessageID); err != nil {
			return nil, 0, err
		}
		if page.Full(len(r.Blocks), size, n) {
			break
		}
		page.Cut(&b, n)
		size += len(b.Content)
		r.Blocks = append(r.Blocks, &b)
	}
	return r, total, rows.Err()
}
