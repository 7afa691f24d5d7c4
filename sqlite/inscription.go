package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"iter"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// InscriptionStore implements [cairn.InscriptionStore].
type InscriptionStore struct{ db *DB }

// NewInscriptionStore returns an InscriptionStore over db.
func NewInscriptionStore(db *DB) *InscriptionStore { return &InscriptionStore{db: db} }

var _ cairn.InscriptionStore = (*InscriptionStore)(nil)

func notFound(err error, format string, args ...any) error {
	if errors.Is(err, sql.ErrNoRows) {
		return cairn.Errorf(cairn.ENOTFOUND, format, args...)
	}
	return err
}

// FindSource implements [cairn.InscriptionStore].
func (s *InscriptionStore) FindSource(ctx context.Context, sessionID string) (_ *cairn.Source, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	src := cairn.Source{SessionID: sessionID}
	err = tx.QueryRowContext(ctx, `SELECT agent, path, src_offset, src_lines, head_hash, tail_hash, src_sum, generation FROM sessions WHERE id = ?`, sessionID).
		Scan(&src.Agent, &src.Path, &src.Offset, &src.Lines, &src.HeadHash, &src.TailHash, &src.Sum, &src.Generation)
	if err != nil {
		return nil, notFound(err, "Session %s was never inscribed.", sessionID)
	}
	return &src, nil
}

// FindSourceByPath implements [cairn.InscriptionStore].
func (s *InscriptionStore) FindSourceByPath(ctx context.Context, path string) (_ *cairn.Source, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	var id string
	err = tx.QueryRowContext(ctx, `SELECT id FROM sessions WHERE path = ? ORDER BY updated_at DESC LIMIT 1`, path).Scan(&id)
	if err != nil {
		return nil, notFound(err, "No session was read from %s.", path)
	}
	tx.Rollback()
	return s.FindSource(ctx, id)
}

// FindCopies implements [cairn.InscriptionStore].
func (s *InscriptionStore) FindCopies(ctx context.Context, id string) (_ []*cairn.Source, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// Copy ids are id + "~" + hex: the range of the sessions' primary key
	// from "~" up to the next byte.
	rows, err := tx.QueryContext(ctx, `SELECT id FROM sessions WHERE id >= ? AND id < ?`, id+"~", id+"\x7f")
	if err != nil {
		return nil, err
	}
	var ids []string
	for rows.Next() {
		var copyID string
		if err := rows.Scan(&copyID); err != nil {
			rows.Close()
			return nil, err
		}
		ids = append(ids, copyID)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	tx.Rollback()
	var out []*cairn.Source
	for _, copyID := range ids {
		src, err := s.FindSource(ctx, copyID)
		if err != nil {
			return nil, err
		}
		src.SessionID = copyID
		out = append(out, src)
	}
	return out, nil
}

// LastRound implements [cairn.InscriptionStore].
func (s *InscriptionStore) LastRound(ctx context.Context, sessionID string) (_ *cairn.Round, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback()
	// One statement, read backwards along the rounds' key: a hook's
	// import asks for it as it begins, and compiles what it runs afresh.
	rounds, err := findRounds(ctx, tx, cairn.RoundFilter{SessionID: sessionID, Last: 1})
	if err != nil {
		return nil, err
	}
	if len(rounds) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "Session %s has no rounds.", sessionID)
	}
	return rounds[0], nil
}

// Inscribe implements [cairn.InscriptionStore]. An inscription of more
// than stageBlocks blocks has them written ahead of its transaction,
// stageBlocks to a transaction, as staged blocks no reader sees
// ([stage]); its transaction then makes them visible with the rest.
func (s *InscriptionStore) Inscribe(ctx context.Context, in *cairn.Inscription) (err error) {
	defer s.db.explain(&err)
	if err := s.sweepEvery(ctx); err != nil {
		return err
	}
	if err := s.dropStaged(ctx, in.Session.ID, ""); err != nil {
		return err
	}
	next, stop := iter.Pull(in.AllBlocks())
	defer stop()
	var steps cairn.StepCounter // counts across the staged blocks and the rest
	src := linesOf(in)
	var st *staging
	pending, more := pullBlocks(next)
	if !more {
		// Few enough blocks for one transaction: written in a group
		// with other sessions' inscriptions waiting for the write lock.
		return s.inscribeGrouped(ctx, in, pending, src)
	}
	for more {
		if st == nil {
			st = &staging{token: strconv.FormatInt(rand.Int64(), 36)}
			defer func() {
				if err != nil {
					// Best effort: the next import of the session drops
					// what is left (a crash's too).
					_ = s.dropStaged(context.WithoutCancel(ctx), in.Session.ID, st.token)
				}
			}()
		}
		if err := s.stage(ctx, in.Session.ID, st, pending, &steps, src); err != nil {
			return fmt.Errorf("inscribe %s: %w", in.Session.ID, err)
		}
		pending, more = pullBlocks(next)
	}
	rest := *in
	rest.Blocks, rest.BlockSeq = nil, func(yield func([]*cairn.Block) bool) {
		for _, b := range pending {
			if !yield(b) {
				return
			}
		}
	}
	chunks := makeChunks(in.Lines)
	if st != nil {
		st.wait()
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	below := int64(math.MaxInt64)
	if st != nil {
		below = st.first
	}
	old, err := inscribe(ctx, tx, &rest, chunks, &steps, below, src)
	if err != nil {
		return fmt.Errorf("inscribe %s: %w", in.Session.ID, err)
	}
	if st != nil {
		if err := st.publish(ctx, tx, in.Session.ID); err != nil {
			return err
		}
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	s.dropRetired(ctx, old)
	return nil
}

// linesOf returns the lines in's blocks view: its own, and, but for an
// inscription that starts a new generation, the stored lines of the
// rounds it replaces that came before them.
func linesOf(in *cairn.Inscription) *lineSource {
	src := newLineSource(in.Session.ID, in.Lines)
	if in.Reset || len(in.Rounds) == 0 {
		return src
	}
	for _, l := range in.Stored {
		src.lines[l.No] = l.Raw
	}
	lo := in.Rounds[0].FirstLine
	for _, r := range in.Rounds {
		lo = min(lo, r.FirstLine)
	}
	hi := in.Rounds[len(in.Rounds)-1].LastLine
	if len(in.Lines) > 0 {
		hi = in.Lines[0].No - 1
	}
	return src.withStored(lo, hi)
}

// inscribe writes in in tx, its blocks viewing the lines of src: its
// staged blocks, if any, have ids from below on; the rest of its blocks
// are numbered on by steps.
func inscribe(ctx context.Context, tx *Tx, in *cairn.Inscription, chunks []chunk, steps *cairn.StepCounter, below int64, src *lineSource) (*retired, error) {
	if err := precheck(ctx, tx, in); err != nil {
		return nil, err
	}
	if in.Reset {
		var top sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(generation) FROM chunks WHERE session_id = ?`, in.Session.ID).Scan(&top); err != nil {
			return nil, err
		}
		if top.Valid && int(top.Int64) >= in.Source.Generation {
			in.Source.Generation = int(top.Int64) + 1
		}
	}
	if err := upsertSession(ctx, tx, in.Session, in.Source); err != nil {
		return nil, err
	}
	fromSeq := in.FromSeq
	if in.Reset {
		fromSeq = 0
	}
	var replaced *roundTotals
	if fromSeq > 0 {
		t, err := sumRounds(ctx, tx, in.Session.ID, fromSeq)
		if err != nil {
			return nil, err
		}
		replaced = &t
	}
	if !in.Reset {
		tx.viewing = src
	}
	old, err := retire(ctx, tx, in.Session.ID, fromSeq, below, true)
	tx.viewing = nil
	if err != nil {
		return nil, err
	}
	if err := deleteRounds(ctx, tx, in.Session.ID, fromSeq); err != nil {
		return nil, err
	}
	if err := insertChunks(ctx, tx, in.Session.ID, in.Source.Generation, chunks); err != nil {
		return nil, err
	}
	if err := insertRounds(ctx, tx, in.Rounds); err != nil {
		return nil, err
	}
	if err := autoTag(ctx, tx, in); err != nil {
		return nil, err
	}
	if _, _, err := writeBlocks(ctx, tx, in.AllBlocks(), steps, src); err != nil {
		return nil, err
	}
	if err := insertMessages(ctx, tx, in.Session.ID, in.Messages); err != nil {
		return nil, err
	}
	if err := refreshRoundUsage(ctx, tx, in.Session.ID, fromSeq); err != nil {
		return nil, err
	}
	return old, refreshSession(ctx, tx, in.Session.ID, fromSeq, replaced)
}

// precheck refuses in before anything of it is written: an invalid
// session, or a position another import moved on from ([cairn.ErrStale]).
func precheck(ctx context.Context, tx *Tx, in *cairn.Inscription) error {
	if err := in.Session.Validate(); err != nil {
		return err
	}
	// The transaction holds the write lock (BEGIN IMMEDIATE): what is
	// read here cannot change before the commit.
	if in.Prev != nil {
		var stored *cairn.Source
		var src cairn.Source
		err := tx.QueryRowContext(ctx, `SELECT src_offset, src_lines, generation FROM sessions WHERE id = ?`, in.Session.ID).
			Scan(&src.Offset, &src.Lines, &src.Generation)
		switch {
		case err == nil:
			stored = &src
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		if !in.Prev.SamePosition(stored) {
			return cairn.ErrStale
		}
	}
	return nil
}

// refreshRoundUsage sums each round's usage from its messages, each
// counted once, in the round where it first appeared (a message id seen
// again later, as in a transcript that repeats old messages, keeps its
// first round whichever batch inscribed it). Without its INDEXED BY,
// SQLite reads the session's every message for each round, through the
// primary key of the WITHOUT ROWID table.
func refreshRoundUsage(ctx context.Context, tx *Tx, id string, fromSeq int) error {
	_, err := tx.ExecContext(ctx, `
		UPDATE rounds SET (input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens) = (
			SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
				COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_creation_tokens), 0)
			FROM messages m INDEXED BY messages_round WHERE m.session_num = `+numOf+` AND m.round_seq = rounds.seq)
		WHERE session_id = ?1 AND seq >= ?2`, id, fromSeq)
	return err
}

func upsertSession(ctx context.Context, tx *Tx, sess *cairn.Session, src cairn.Source) error {
	now := formatTime(tx.now)
	_, err := tx.ExecContext(ctx, `
		INSERT INTO sessions (id, agent, lineage, parent, agent_id, project, title, version, git_branch, path,
			src_offset, src_lines, head_hash, tail_hash, src_sum, generation, created_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (id) DO UPDATE SET
			agent = excluded.agent,
			project = COALESCE(NULLIF(excluded.project, ''), project),
			title = COALESCE(NULLIF(excluded.title, ''), title),
			version = COALESCE(NULLIF(excluded.version, ''), version),
			git_branch = COALESCE(NULLIF(excluded.git_branch, ''), git_branch), path = excluded.path, src_offset = excluded.src_offset,
			src_lines = excluded.src_lines, head_hash = excluded.head_hash, tail_hash = excluded.tail_hash, src_sum = excluded.src_sum,
			generation = excluded.generation, updated_at = excluded.updated_at`,
		sess.ID, sess.Agent, sess.Lineage, sess.Parent, sess.AgentID, sess.Project, sess.Title, sess.Version,
		sess.GitBranch, src.Path, src.Offset, src.Lines, src.HeadHash, src.TailHash, src.Sum, src.Generation, now, now)
	return err
}

// deleteIndex removes every round of a session, its blocks, staged
// ones included with their ranges (an import staging them then finds
// them gone and starts over), its messages and its search entries; lines
// are never deleted.
func deleteIndex(ctx context.Context, tx *Tx, sessionID string) error {
	if err := deleteBlocks(ctx, tx, sessionID, 0, math.MaxInt64, false); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM staged_blocks WHERE session_num = `+numOf, sessionID); err != nil {
		return err
	}
	return deleteRounds(ctx, tx, sessionID, 0)
}

// deleteRounds deletes, in tx, session id's rounds from seq onwards and
// their messages.
func deleteRounds(ctx context.Context, tx *Tx, sessionID string, seq int) error {
	for _, q := range []string{
		`DELETE FROM rounds WHERE session_id = ?1 AND seq >= ?2`,
		`DELETE FROM messages WHERE session_num = ` + numOf + ` AND round_seq >= ?2`,
	} {
		if _, err := tx.ExecContext(ctx, q, sessionID, seq); err != nil {
			return err
		}
	}
	return nil
}

func insertRounds(ctx context.Context, tx *Tx, rounds []*cairn.Round) error {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO rounds (session_id, seq, started_at, ended_at, first_line, last_line, user_preview, agent_preview, tools,
			input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	for _, r := range rounds {
		if _, err := stmt.ExecContext(ctx, r.SessionID, r.Seq, formatTime(r.StartedAt), formatTime(r.EndedAt), r.FirstLine, r.LastLine,
			r.UserPreview, r.AgentPreview, strings.Join(r.Tools, toolSep),
			r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheCreation); err != nil {
			return fmt.Errorf("round %d: %w", r.Seq, err)
		}
	}
	return nil
}

// insertBlocks inserts the blocks seq yields, then their search entries,
// their text viewed in the lines src gives. It holds at most blockBuffer
// of them at a time.
func insertBlocks(ctx context.Context, tx *Tx, seq iter.Seq[[]*cairn.Block], src *lineSource) error {
	var steps cairn.StepCounter // seq yields whole rounds, in order
	_, _, err := writeBlocks(ctx, tx, seq, &steps, src)
	return err
}

// writeBlocks inserts the blocks seq yields, numbering their steps with
// steps and viewing their text in the lines src gives (nil: none), and
// holds their search entries for the transaction to write as it commits
// (index.go), and returns the first and last id given (0, 0 if
// none): ids given in one transaction are consecutive.
func writeBlocks(ctx context.Context, tx *Tx, seq iter.Seq[[]*cairn.Block], steps *cairn.StepCounter, src *lineSource) (first, last int64, err error) {
	cols := []string{"session_num", "round_seq", "line_no", "idx", "role", "kind", "timestamp", "content", "span", "tool_name",
		"tool_id", "agent_id", "is_error", "sidechain", "message_id", "searchable", "step"}
	var id string // the session of num
	var num int64
	var viewErr error
	values := func(b *cairn.Block, dst []any) []any {
		if b.SessionID != id || num == 0 {
			var err error
			if num, err = sessionNum(ctx, tx, b.SessionID); err != nil && viewErr == nil {
				viewErr = err
			}
			id = b.SessionID
		}
		content, span, err := src.view(ctx, tx, b)
		if err != nil && viewErr == nil {
			viewErr = err
		}
		return append(dst, num, b.RoundSeq, b.LineNo, b.Index, roleCode(b.Role), kindCode(b.Kind), stampOf(b.Timestamp),
			content, span, b.ToolName, idCode(b.ToolID), b.AgentID, b.IsError, b.Sidechain, idCode(b.MessageID), b.Kind.Searchable() && !b.Sidechain,
			steps.Next(b))
	}
	idx := tx.pendingIndex()
	buf := make([]*cairn.Block, 0, blockBuffer)
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		if err := insertRows(ctx, tx, "blocks", cols, len(buf), func(i int, dst []any) []any { return values(buf[i], dst) }); err != nil {
			return fmt.Errorf("blocks of rounds %d–%d: %w", buf[0].RoundSeq, buf[len(buf)-1].RoundSeq, err)
		}
		if viewErr != nil {
			return viewErr
		}
		// Rows inserted in one transaction get consecutive rowids ending
		// at the last one inserted (the table has no AUTOINCREMENT and the
		// transaction holds the write lock).
		if err := tx.QueryRowContext(ctx, `SELECT last_insert_rowid()`).Scan(&last); err != nil {
			return err
		}
		for i, b := range buf {
			b.ID = last - int64(len(buf)-1-i)
			if b.Kind.Searchable() && !b.Sidechain {
				idx.addText(b, src.indexText(b))
			}
		}
		if first == 0 {
			first = buf[0].ID
		}
		clear(buf)
		buf = buf[:0]
		if idx.full() {
			return idx.write(ctx, tx)
		}
		return nil
	}
	for blocks := range seq {
		for len(blocks) > 0 {
			n := min(len(blocks), cap(buf)-len(buf))
			buf, blocks = append(buf, blocks[:n]...), blocks[n:]
			if len(buf) == cap(buf) {
				if err := flush(); err != nil {
					return 0, 0, err
				}
			}
		}
	}
	if err := flush(); err != nil || first == 0 {
		return 0, 0, err
	}
	return first, last, nil
}

// blockBuffer is how many blocks insertBlocks holds between two writes: a
// multiple of insertBatch, so rows go insertBatch to a statement.
const blockBuffer = 64 * insertBatch

func insertMessages(ctx context.Context, tx *Tx, sessionID string, msgs []*cairn.MessageUsage) error {
	stmt, err := tx.PrepareContext(ctx, `
		INSERT INTO messages (session_num, message_id, round_seq, model, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT (session_num, message_id) DO UPDATE SET input_tokens = excluded.input_tokens,
			output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
			cache_creation_tokens = excluded.cache_creation_tokens`)
	if err != nil {
		return err
	}
	defer stmt.Close()
	var num int64
	if len(msgs) > 0 {
		if num, err = sessionNum(ctx, tx, sessionID); err != nil {
			return err
		}
	}
	for _, m := range msgs {
		if _, err := stmt.ExecContext(ctx, num, m.MessageID, m.RoundSeq, m.Model,
			m.Usage.Input, m.Usage.Output, m.Usage.CacheRead, m.Usage.CacheCreation); err != nil {
			return err
		}
	}
	return nil
}

// roundTotals are a session's figures summed over some of its rounds.
type roundTotals struct {
	rounds                                  int64 // seq > 0
	input, output, cacheRead, cacheCreation int64
	started, ended                          string // the earliest start, the latest end ("" if none)
}

// sumRounds returns the totals of a session's rounds from seq fromSeq on.
func sumRounds(ctx context.Context, tx *Tx, id string, fromSeq int) (roundTotals, error) {
	var t roundTotals
	// Run twice in an inscription (before and after it), compiled once.
	stmt, err := tx.prepared(ctx, `
		SELECT COUNT(*) FILTER (WHERE seq > 0), COALESCE(MIN(NULLIF(started_at, '')), ''), COALESCE(MAX(ended_at), ''),
			COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
			COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_creation_tokens), 0)
		FROM rounds WHERE session_id = ? AND seq >= ?`)
	if err != nil {
		return t, err
	}
	err = stmt.QueryRowContext(ctx, id, fromSeq).
		Scan(&t.rounds, &t.started, &t.ended, &t.input, &t.output, &t.cacheRead, &t.cacheCreation)
	return t, err
}

// refreshSession recomputes a session's figures from its index and links
// subagents to the round whose tool call spawned them, whichever of parent
// and child was inscribed first.
//
// replaced, when not nil, holds the totals of the rounds from fromSeq on
// as they were before this inscription replaced them: the session's
// figures are then updated by the difference, reading only the new
// rounds, so that a hook's import of one round does not read a long
// session's every round. The rounds before fromSeq are unchanged by an
// inscription, and a replaced round is re-read from the same first lines,
// so the earliest start and the latest end stay those of the union.
func refreshSession(ctx context.Context, tx *Tx, id string, fromSeq int, replaced *roundTotals) error {
	t, err := sumRounds(ctx, tx, id, fromSeq)
	if err != nil {
		return err
	}
	if replaced != nil {
		var cur roundTotals
		if err := tx.QueryRowContext(ctx, `
			SELECT round_count, started_at, ended_at, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens
			FROM sessions WHERE id = ?`, id).
			Scan(&cur.rounds, &cur.started, &cur.ended, &cur.input, &cur.output, &cur.cacheRead, &cur.cacheCreation); err != nil {
			return err
		}
		t.rounds += cur.rounds - replaced.rounds
		t.input += cur.input - replaced.input
		t.output += cur.output - replaced.output
		t.cacheRead += cur.cacheRead - replaced.cacheRead
		t.cacheCreation += cur.cacheCreation - replaced.cacheCreation
		if cur.started != "" && (t.started == "" || cur.started < t.started) {
			t.started = cur.started
		}
		t.ended = max(t.ended, cur.ended)
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE sessions SET (round_count, started_at, ended_at, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens) =
			(?, ?, ?, ?, ?, ?, ?)
		WHERE id = ?`, t.rounds, t.started, t.ended, t.input, t.output, t.cacheRead, t.cacheCreation, id); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `
		UPDATE sessions SET parent_round = COALESCE((SELECT MIN(b.round_seq) FROM blocks b
			WHERE b.session_num = (SELECT num FROM session_nums WHERE session_id = sessions.parent) AND b.agent_id = sessions.agent_id AND b.agent_id != ''), 0)
		WHERE lineage = 'subagent' AND (id = ?1 OR (parent = ?1 AND parent != ''))`, id)
	return err
}
