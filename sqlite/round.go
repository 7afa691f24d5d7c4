package sqlite

import (
	"context"
	"database/sql"
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
	defer tx.Rollback()
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
	defer tx.Rollback()
	return findRounds(ctx, tx, filter)
}

// CountRounds implements [cairn.RoundStore].
func (s *RoundStore) CountRounds(ctx context.Context, filter cairn.RoundFilter) (_ int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	if column, value, ok := oneTag(filter); ok {
		return countTagged(ctx, tx, column, value)
	}
	where, args := roundWhere(filter)
	var n int
	err = tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM rounds r LEFT JOIN round_tags t ON t.session_id = r.session_id AND t.seq = r.seq
		WHERE `+strings.Join(where, " AND "), args...).Scan(&n)
	return n, err
}

// oneTag returns the tag column and value f selects rounds by, when it
// selects them by one tag alone.
func oneTag(f cairn.RoundFilter) (column, value string, ok bool) {
	switch {
	case !byTag(f) || f.Tagged:
	case f.FrameID != "" && f.EngagementID == "":
		return "frame_id", f.FrameID, true
	case f.EngagementID != "" && f.FrameID == "":
		return "engagement_id", f.EngagementID, true
	}
	return "", "", false
}

// countTagged counts the rounds tagged value in column from the tag's
// per-session counts (round_tag_counts, which triggers keep), less the
// tag rows past each session's last round (a round a rewrite dropped
// keeps its tag row, and is not one of the tag's rounds). Stepping
// through the tag's index entries instead was a tenth of the SessionStart
// hook on a frame of 3,400 rounds.
func countTagged(ctx context.Context, tx *Tx, column, value string) (int, error) {
	rows, err := tx.QueryContext(ctx, `SELECT c.session_id, c.n,
		(SELECT MAX(seq) FROM round_tags t WHERE t.`+column+` = c.tag AND t.`+column+` != '' AND t.session_id = c.session_id),
		(SELECT MAX(seq) FROM rounds r WHERE r.session_id = c.session_id)
		FROM round_tag_counts c WHERE c.kind = ? AND c.tag = ?`, column, value)
	if err != nil {
		return 0, err
	}
	type group struct {
		session            string
		n                  int
		lastTag, lastRound sql.NullInt64
	}
	var groups []group
	for rows.Next() {
		var g group
		if err := rows.Scan(&g.session, &g.n, &g.lastTag, &g.lastRound); err != nil {
			rows.Close()
			return 0, err
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, err
	}
	total := 0
	for _, g := range groups {
		if !g.lastRound.Valid || !g.lastTag.Valid {
			continue
		}
		if g.lastTag.Int64 > g.lastRound.Int64 {
			var dropped int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM round_tags WHERE `+column+` = ? AND `+column+` != '' AND session_id = ? AND seq > ?`,
				value, g.session, g.lastRound.Int64).Scan(&dropped); err != nil {
				return 0, err
			}
			g.n -= dropped
		}
		total += g.n
	}
	return total, nil
}

// byTag reports whether f selects rounds by their tags alone, so that the
// tag indexes can drive the query.
func byTag(f cairn.RoundFilter) bool {
	return (f.FrameID != "" || f.EngagementID != "") && f.SessionID == "" && f.FromSeq == 0 && f.ToSeq == 0 &&
		f.Since.IsZero() && f.Until.IsZero()
}

// roundWhere returns the conditions of f on rounds r and their tags t.
func roundWhere(f cairn.RoundFilter) ([]string, []any) {
	where, args := []string{"1 = 1"}, []any{}
	if f.SessionID != "" {
		where, args = append(where, "r.session_id = ?"), append(args, f.SessionID)
	}
	// "!= ''" repeats the partial indexes' condition, so that a frame's or
	// an engagement's rounds are found through them, not by reading every
	// round (a hook assembles the current frame's log at every session start).
	if f.EngagementID != "" {
		where, args = append(where, "t.engagement_id = ? AND t.engagement_id != ''"), append(args, f.EngagementID)
	}
	if f.FrameID != "" {
		where, args = append(where, "t.frame_id = ? AND t.frame_id != ''"), append(args, f.FrameID)
	}
	if f.Tagged {
		where = append(where, "t.engagement_id != ''")
	}
	if f.FromSeq > 0 {
		where, args = append(where, "r.seq >= ?"), append(args, f.FromSeq)
	}
	if f.ToSeq > 0 {
		where, args = append(where, "r.seq <= ?"), append(args, f.ToSeq)
	}
	if !f.Since.IsZero() {
		where, args = append(where, "r.started_at >= ?"), append(args, formatTime(f.Since))
	}
	if !f.Until.IsZero() {
		where, args = append(where, "r.started_at < ?"), append(args, formatTime(f.Until))
	}
	return where, args
}

func findRounds(ctx context.Context, tx *Tx, f cairn.RoundFilter) ([]*cairn.Round, error) {
	where, args := roundWhere(f)
	// Tool calls are counted from the partial index blocks_tool_use (its
	// WHERE repeated, so the index serves it; 4 is kindToolUse): no block
	// is read.
	calls := "0"
	if f.ToolCalls {
		calls = `(SELECT COUNT(*) FROM blocks b WHERE b.session_num = (SELECT num FROM session_nums WHERE session_id = r.session_id) AND b.round_seq = r.seq AND b.kind = 4 AND b.sidechain = 0 AND ` + unstaged + `)`
	}
	// A tag's rounds are ordered by the tag index's (session_id, seq),
	// which t shares with r: the last ones are read from it, nothing sorted.
	by, dir, limit := "r", "", ""
	if byTag(f) {
		by = "t"
	}
	if f.Last > 0 {
		dir, limit, args = " DESC", " LIMIT ?", append(args, f.Last)
	}
	order := by + ".session_id" + dir + ", " + by + ".seq" + dir
	rows, err := tx.QueryContext(ctx, `
		SELECT r.session_id, r.seq, r.started_at, r.ended_at, r.first_line, r.last_line, r.user_preview, r.agent_preview,
			r.tools, r.input_tokens, r.output_tokens, r.cache_read_tokens, r.cache_creation_tokens,
			COALESCE(t.engagement_id, ''), COALESCE(t.frame_id, ''), `+calls+`
		FROM rounds r LEFT JOIN round_tags t ON t.session_id = r.session_id AND t.seq = r.seq
		WHERE `+strings.Join(where, " AND ")+` ORDER BY `+order+limit, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Round
	for rows.Next() {
		var r cairn.Round
		var started, ended, tools string
		if err := rows.Scan(&r.SessionID, &r.Seq, &started, &ended, &r.FirstLine, &r.LastLine, &r.UserPreview, &r.AgentPreview,
			&tools, &r.Usage.Input, &r.Usage.Output, &r.Usage.CacheRead, &r.Usage.CacheCreation, &r.EngagementID, &r.FrameID, &r.ToolCalls); err != nil {
			return nil, err
		}
		r.StartedAt, r.EndedAt = parseTime(started), parseTime(ended)
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
	// The rounds' lines decompress while their blocks are read.
	var pre *rawStream
	if first, last := rounds[0].FirstLine, rounds[len(rounds)-1].LastLine; first <= last {
		var err error
		if pre, err = openRaw(ctx, tx, sessionID, first, last); err != nil {
			return err
		}
		defer pre.close()
	}
	blocks, err := queryBlocks(ctx, tx, sessionID, pre, `round_seq >= ? AND round_seq <= ?`, rounds[0].Seq, rounds[len(rounds)-1].Seq)
	for _, b := range blocks {
		if r := bySeq[b.RoundSeq]; r != nil {
			r.Blocks = append(r.Blocks, b)
		}
	}
	return err
}

func findBlocks(ctx context.Context, tx *Tx, sessionID string, seq int) ([]*cairn.Block, error) {
	return queryBlocks(ctx, tx, sessionID, nil, `round_seq = ?`, seq)
}

// queryBlocks returns a session's blocks matching cond, in order, their
// text read from their lines where they view them (from pre, if not nil
// and it holds them).
func queryBlocks(ctx context.Context, tx *Tx, sessionID string, pre *rawStream, cond string, args ...any) ([]*cairn.Block, error) {
	rows, err := tx.QueryContext(ctx, `
		SELECT round_seq, id, line_no, idx, role, kind, timestamp, content, span, tool_name, tool_id, agent_id, is_error, sidechain, message_id
		FROM blocks b WHERE session_num = `+numOf+` AND `+cond+` AND `+unstaged+` ORDER BY round_seq, line_no, idx`, append([]any{sessionID}, args...)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Block
	var views []viewed
	for rows.Next() {
		b := cairn.Block{SessionID: sessionID}
		var ts int64
		var span sql.NullInt64
		if err := rows.Scan(&b.RoundSeq, &b.ID, &b.LineNo, &b.Index, codedRole{&b.Role}, codedKind{&b.Kind}, &ts, &b.Content, &span, &b.ToolName, codedID{&b.ToolID},
			&b.AgentID, &b.IsError, &b.Sidechain, codedID{&b.MessageID}); err != nil {
			return nil, err
		}
		b.Timestamp = parseStamp(ts)
		out = append(out, &b)
		if span.Valid {
			views = append(views, viewed{&b, span.Int64})
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	rows.Close()
	return out, resolveViews(ctx, tx, sessionID, views, pre)
}

// toolSep joins tool names in one column; it never occurs in a tool name.
const toolSep = "\x1f"

// FindRoundPage implements [cairn.RoundStore]: the page's block ids first,
// read off the round's index entries alone (blocks_round, whose entries
// are in id order: an import inserts a round's blocks all at once and in
// order, so their ids are), then those blocks, each content read once and
// no further than the page's byte limit. Sorting a million blocks by line
// and index instead took a second a page.
func (s *RoundStore) FindRoundPage(ctx context.Context, sessionID string, seq int, page cairn.BlockPage) (_ *cairn.Round, total int, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer tx.Rollback()
	rounds, err := findRounds(ctx, tx, cairn.RoundFilter{SessionID: sessionID, FromSeq: seq, ToSeq: seq})
	if err != nil {
		return nil, 0, err
	} else if len(rounds) == 0 {
		return nil, 0, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no round %d.", sessionID, seq)
	}
	r := rounds[0]
	// A session with no staged blocks (nearly every one) is counted and
	// paged without looking each block up in staged_blocks: that lookup
	// was 0.33 s of a page of a round of a million blocks, nine tenths of it.
	visible := unstaged
	var staged bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM staged_blocks WHERE session_num = `+numOf+`)`, sessionID).Scan(&staged); err != nil {
		return nil, 0, err
	} else if !staged {
		visible = "1 = 1"
	}
	if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM blocks b WHERE b.session_num = `+numOf+` AND b.round_seq = ?2 AND `+visible, sessionID, seq).Scan(&total); err != nil {
		return nil, 0, err
	}
	if page.Limit <= 0 || page.From >= total {
		return r, total, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT b.id FROM blocks b WHERE b.session_num = `+numOf+` AND b.round_seq = ?2 AND `+visible+` ORDER BY b.id LIMIT ?3 OFFSET ?4`,
		sessionID, seq, page.Limit, max(page.From, 0))
	if err != nil {
		return nil, 0, err
	}
	var ids []any
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, 0, err
		}
		ids = append(ids, id)
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(ids) == 0 {
		return r, total, err
	}
	rows, err = tx.QueryContext(ctx, `
		SELECT id, line_no, idx, role, kind, timestamp, octet_length(content), span, tool_name, tool_id, agent_id, is_error, sidechain, message_id
		FROM blocks WHERE id IN (?`+strings.Repeat(", ?", len(ids)-1)+`) ORDER BY id`, ids...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var blocks []*cairn.Block
	var sizes []int
	var spans []sql.NullInt64
	for rows.Next() {
		b := cairn.Block{SessionID: sessionID, RoundSeq: seq}
		var ts int64
		var n int
		var span sql.NullInt64
		if err := rows.Scan(&b.ID, &b.LineNo, &b.Index, codedRole{&b.Role}, codedKind{&b.Kind}, &ts, &n, &span, &b.ToolName, codedID{&b.ToolID},
			&b.AgentID, &b.IsError, &b.Sidechain, codedID{&b.MessageID}); err != nil {
			return nil, 0, err
		}
		b.Timestamp = parseStamp(ts)
		blocks, sizes, spans = append(blocks, &b), append(sizes, n), append(spans, span)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	// Each text is read as the page takes its block, and none past the
	// block that fills it: a viewed one streamed from its line (a
	// pageReader), a kept one cut as SQL reads it, each with its full
	// length. The page holds its texts and one window, not its lines.
	texts := pageReader{session: sessionID, limit: max(page.Bytes, 0)}
	defer texts.close()
	r.Blocks = []*cairn.Block{}
	size := 0
	for i, b := range blocks {
		if spans[i].Valid {
			if b.Content, sizes[i], err = texts.text(ctx, tx, b.ID, b.LineNo, spans[i].Int64); err != nil {
				return nil, 0, err
			}
		}
		if page.Full(len(r.Blocks), size, sizes[i]) {
			break
		}
		if !spans[i].Valid {
			if b.Content, err = keptText(ctx, tx, b.ID, max(page.Bytes, 0)); err != nil {
				return nil, 0, err
			}
		}
		page.Cut(b, sizes[i])
		size += len(b.Content)
		r.Blocks = append(r.Blocks, b)
	}
	return r, total, nil
}

// keptText returns the first n characters of the text block id keeps.
func keptText(ctx context.Context, tx *Tx, id int64, n int) (string, error) {
	stmt, err := tx.prepared(ctx, `SELECT substr(content, 1, ?) FROM blocks WHERE id = ?`)
	if err != nil {
		return "", err
	}
	var text string
	return text, stmt.QueryRowContext(ctx, n, id).Scan(&text)
}
