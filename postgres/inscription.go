package postgres

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"

	"github.com/jackc/pgx/v5"
)

// InscriptionStore implements [cairn.InscriptionStore].
type InscriptionStore struct{ db *DB }

// NewInscriptionStore returns an InscriptionStore over db.
func NewInscriptionStore(db *DB) *InscriptionStore { return &InscriptionStore{db: db} }

var _ cairn.InscriptionStore = (*InscriptionStore)(nil)

func notFound(err error, format string, args ...any) error {
	if errors.Is(err, pgx.ErrNoRows) {
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
	defer tx.Rollback(ctx)
	return findSource(ctx, tx, `id = $1`, sessionID)
}

// FindSourceByPath implements [cairn.InscriptionStore].
func (s *InscriptionStore) FindSourceByPath(ctx context.Context, path string) (_ *cairn.Source, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	src, err := findSource(ctx, tx, `path = $1 ORDER BY updated_at DESC LIMIT 1`, path)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No session was read from %s.", path)
	}
	return src, err
}

// FindCopies implements [cairn.InscriptionStore].
func (s *InscriptionStore) FindCopies(ctx context.Context, id string) (_ []*cairn.Source, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	rows, err := tx.Query(ctx, `SELECT id, agent, path, src_offset, src_lines, head_hash, tail_hash, src_sum, generation FROM sessions WHERE starts_with(id, $1)`, id+"~")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Source
	for rows.Next() {
		var src cairn.Source
		if err := rows.Scan(&src.SessionID, &src.Agent, &src.Path, &src.Offset, &src.Lines, &src.HeadHash, &src.TailHash, &src.Sum, &src.Generation); err != nil {
			return nil, err
		}
		out = append(out, &src)
	}
	return out, rows.Err()
}

func findSource(ctx context.Context, tx *Tx, cond string, arg any) (*cairn.Source, error) {
	var src cairn.Source
	err := tx.QueryRow(ctx, `SELECT id, agent, path, src_offset, src_lines, head_hash, tail_hash, src_sum, generation FROM sessions WHERE `+cond, arg).
		Scan(&src.SessionID, &src.Agent, &src.Path, &src.Offset, &src.Lines, &src.HeadHash, &src.TailHash, &src.Sum, &src.Generation)
	if err != nil {
		return nil, notFound(err, "Session %s was never inscribed.", arg)
	}
	return &src, nil
}

// LastRound implements [cairn.InscriptionStore].
func (s *InscriptionStore) LastRound(ctx context.Context, sessionID string) (_ *cairn.Round, err error) {
	defer s.db.explain(&err)
	tx, err := s.db.read(ctx)
	if err != nil {
		return nil, err
	}
	defer tx.Rollback(ctx)
	var seq int
	if err := tx.QueryRow(ctx, `SELECT seq FROM rounds WHERE session_id = $1 ORDER BY seq DESC LIMIT 1`, sessionID).Scan(&seq); err != nil {
		return nil, notFound(err, "Session %s has no rounds.", sessionID)
	}
	rounds, err := findRounds(ctx, tx, cairn.RoundFilter{SessionID: sessionID, FromSeq: seq, ToSeq: seq})
	if err != nil || len(rounds) == 0 {
		return nil, err
	}
	return rounds[0], nil
}

// Inscribe implements [cairn.InscriptionStore].
func (s *InscriptionStore) Inscribe(ctx context.Context, in *cairn.Inscription) (err error) {
	defer s.db.explain(&err)
	if err := in.Session.Validate(); err != nil {
		return err
	}
	gen := in.Source.Generation
	err = s.db.write(ctx, func(tx *Tx) error {
		in.Source.Generation = gen // a retried transaction starts over
		return inscribe(ctx, tx, in)
	})
	if err != nil {
		return fmt.Errorf("inscribe %s: %w", in.Session.ID, err)
	}
	return nil
}

func inscribe(ctx context.Context, tx *Tx, in *cairn.Inscription) error {
	// Writers of one session take turns from here to the commit, so the
	// position checked is the one the commit moves on.
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "cairn session "+in.Session.ID); err != nil {
		return err
	}
	if in.Prev != nil {
		var src cairn.Source
		var stored *cairn.Source
		err := tx.QueryRow(ctx, `SELECT src_offset, src_lines, generation FROM sessions WHERE id = $1`, in.Session.ID).
			Scan(&src.Offset, &src.Lines, &src.Generation)
		switch {
		case err == nil:
			stored = &src
		case !errors.Is(err, pgx.ErrNoRows):
			return err
		}
		if !in.Prev.SamePosition(stored) {
			return cairn.ErrStale
		}
	}
	if in.Reset {
		var top *int
		if err := tx.QueryRow(ctx, `SELECT MAX(generation) FROM lines WHERE session_id = $1`, in.Session.ID).Scan(&top); err != nil {
			return err
		}
		if top != nil && *top >= in.Source.Generation {
			in.Source.Generation = *top + 1
		}
	}
	// The session row is written first: it locks the session, so two
	// writers of one session take turns.
	if err := upsertSession(ctx, tx, in.Session, in.Source); err != nil {
		return err
	}
	fromSeq := in.FromSeq
	if in.Reset {
		fromSeq = 0
	}
	if err := deleteIndex(ctx, tx, in.Session.ID, fromSeq); err != nil {
		return err
	}
	if err := insertLines(ctx, tx, in.Session.ID, in.Source.Generation, in.Lines); err != nil {
		return err
	}
	if err := insertIndex(ctx, tx, in.Session.ID, in); err != nil {
		return err
	}
	if err := refreshRoundUsage(ctx, tx, in.Session.ID, fromSeq); err != nil {
		return err
	}
	return refreshSession(ctx, tx, in.Session.ID)
}

func upsertSession(ctx context.Context, tx *Tx, sess *cairn.Session, src cairn.Source) error {
	_, err := tx.Exec(ctx, `
		INSERT INTO sessions (id, agent, lineage, parent, agent_id, project, title, version, git_branch, path,
			src_offset, src_lines, head_hash, tail_hash, src_sum, generation, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17)
		ON CONFLICT (id) DO UPDATE SET
			agent = excluded.agent,
			project = COALESCE(NULLIF(excluded.project, ''), sessions.project),
			title = COALESCE(NULLIF(excluded.title, ''), sessions.title),
			version = COALESCE(NULLIF(excluded.version, ''), sessions.version),
			git_branch = COALESCE(NULLIF(excluded.git_branch, ''), sessions.git_branch), path = excluded.path,
			src_offset = excluded.src_offset, src_lines = excluded.src_lines, head_hash = excluded.head_hash,
			tail_hash = excluded.tail_hash, src_sum = excluded.src_sum, generation = excluded.generation, updated_at = excluded.updated_at`,
		sess.ID, sess.Agent, sess.Lineage, sess.Parent, clean(sess.AgentID), clean(sess.Project), clean(sess.Title), clean(sess.Version),
		clean(sess.GitBranch), src.Path, src.Offset, src.Lines, src.HeadHash, src.TailHash, src.Sum, src.Generation, tx.now)
	return err
}

// deleteIndex removes the rounds from seq onwards, their blocks (and so
// their search entries) and their messages; lines are never deleted.
func deleteIndex(ctx context.Context, tx *Tx, sessionID string, seq int) error {
	for _, q := range []string{
		`DELETE FROM blocks WHERE session_id = $1 AND round_seq >= $2`,
		`DELETE FROM rounds WHERE session_id = $1 AND seq >= $2`,
		`DELETE FROM messages WHERE session_id = $1 AND round_seq >= $2`,
	} {
		if _, err := tx.Exec(ctx, q, sessionID, seq); err != nil {
			return err
		}
	}
	return nil
}

// insertIndex stores an inscription's rounds, blocks and messages.
func insertIndex(ctx context.Context, tx *Tx, sessionID string, in *cairn.Inscription) error {
	if err := insertRounds(ctx, tx, in.Rounds); err != nil {
		return err
	}
	if err := autoTag(ctx, tx, in); err != nil {
		return err
	}
	if err := insertBlocks(ctx, tx, in.AllBlocks()); err != nil {
		return err
	}
	return insertMessages(ctx, tx, sessionID, in.Messages)
}

func insertRounds(ctx context.Context, tx *Tx, rounds []*cairn.Round) error {
	cols := []string{"session_id", "seq", "started_at", "ended_at", "first_line", "last_line", "user_preview", "agent_preview",
		"tools", "input_tokens", "output_tokens", "cache_read_tokens", "cache_creation_tokens"}
	_, err := tx.CopyFrom(ctx, pgx.Identifier{"rounds"}, cols, pgx.CopyFromSlice(len(rounds), func(i int) ([]any, error) {
		r := rounds[i]
		return []any{r.SessionID, r.Seq, nullTime(r.StartedAt), nullTime(r.EndedAt), r.FirstLine, r.LastLine,
			clean(r.UserPreview), clean(r.AgentPreview), clean(strings.Join(r.Tools, toolSep)),
			r.Usage.Input, r.Usage.Output, r.Usage.CacheRead, r.Usage.CacheCreation}, nil
	}))
	if err != nil {
		return fmt.Errorf("rounds: %w", err)
	}
	return nil
}

// insertBlocks copies in the blocks seq yields, one slice at a time; the
// table computes the search vector of those that are searchable.
func insertBlocks(ctx context.Context, tx *Tx, seq iter.Seq[[]*cairn.Block]) error {
	cols := []string{"session_id", "round_seq", "line_no", "idx", "role", "kind", "timestamp", "content", "tool_name",
		"tool_id", "agent_id", "is_error", "sidechain", "message_id", "searchable", "search_text", "step"}
	next, stop := iter.Pull(seq)
	defer stop()
	rows := &blockRows{next: next}
	if _, err := tx.CopyFrom(ctx, pgx.Identifier{"blocks"}, cols, rows); err != nil {
		return fmt.Errorf("blocks: %w", err)
	}
	return nil
}

// blockRows is a [pgx.CopyFromSource] of the blocks a sequence yields.
type blockRows struct {
	next   func() ([]*cairn.Block, bool)
	blocks []*cairn.Block    // the slice read last
	i      int               // the current row's block in it
	steps  cairn.StepCounter // the sequence yields whole rounds, in order
}

func (r *blockRows) Next() bool {
	r.i++
	for r.i >= len(r.blocks) {
		blocks, ok := r.next()
		if !ok {
			r.blocks = nil
			return false
		}
		r.blocks, r.i = blocks, 0
	}
	return true
}

func (r *blockRows) Values() ([]any, error) {
	b := r.blocks[r.i]
	content := clean(b.Content)
	searchable, text := b.Kind.Searchable() && !b.Sidechain, ""
	if searchable {
		text = cairn.SearchText(cairn.IndexText(b.Kind, clean(b.ToolName), content))
	}
	return []any{b.SessionID, b.RoundSeq, b.LineNo, b.Index, b.Role, string(b.Kind), nullTime(b.Timestamp),
		content, clean(b.ToolName), clean(b.ToolID), clean(b.AgentID), b.IsError, b.Sidechain, clean(b.MessageID),
		searchable, text, r.steps.Next(b)}, nil
}

func (r *blockRows) Err() error { return nil }

// clean returns s as PostgreSQL's text can hold it: valid UTF-8 without
// NUL characters (SQLite's text holds any bytes). The raw line keeps the
// bytes as they were.
func clean(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "\uFFFD")
}

func insertMessages(ctx context.Context, tx *Tx, sessionID string, msgs []*cairn.MessageUsage) error {
	if len(msgs) == 0 {
		return nil
	}
	// One message may be reported more than once: the last report wins.
	var b pgx.Batch
	for _, m := range msgs {
		b.Queue(`
			INSERT INTO messages (session_id, message_id, round_seq, model, input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (session_id, message_id) DO UPDATE SET input_tokens = excluded.input_tokens,
				output_tokens = excluded.output_tokens, cache_read_tokens = excluded.cache_read_tokens,
				cache_creation_tokens = excluded.cache_creation_tokens`,
			sessionID, clean(m.MessageID), m.RoundSeq, clean(m.Model), m.Usage.Input, m.Usage.Output, m.Usage.CacheRead, m.Usage.CacheCreation)
	}
	return tx.SendBatch(ctx, &b).Close()
}

// refreshRoundUsage sums each round's usage from its messages, each
// counted once.
func refreshRoundUsage(ctx context.Context, tx *Tx, id string, fromSeq int) error {
	_, err := tx.Exec(ctx, `
		UPDATE rounds r SET (input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens) = (
			SELECT COALESCE(SUM(input_tokens), 0), COALESCE(SUM(output_tokens), 0),
				COALESCE(SUM(cache_read_tokens), 0), COALESCE(SUM(cache_creation_tokens), 0)
			FROM messages m WHERE m.session_id = r.session_id AND m.round_seq = r.seq)
		WHERE r.session_id = $1 AND r.seq >= $2`, id, fromSeq)
	return err
}

// refreshSession recomputes a session's figures from its index and links
// subagents to the round whose tool call spawned them, whichever of parent
// and child was inscribed first.
func refreshSession(ctx context.Context, tx *Tx, id string) error {
	_, err := tx.Exec(ctx, `
		UPDATE sessions SET
			round_count = (SELECT COUNT(*) FROM rounds WHERE session_id = $1 AND seq > 0),
			started_at = (SELECT MIN(started_at) FROM rounds WHERE session_id = $1),
			ended_at = (SELECT MAX(ended_at) FROM rounds WHERE session_id = $1),
			input_tokens = COALESCE((SELECT SUM(input_tokens) FROM messages WHERE session_id = $1), 0),
			output_tokens = COALESCE((SELECT SUM(output_tokens) FROM messages WHERE session_id = $1), 0),
			cache_read_tokens = COALESCE((SELECT SUM(cache_read_tokens) FROM messages WHERE session_id = $1), 0),
			cache_creation_tokens = COALESCE((SELECT SUM(cache_creation_tokens) FROM messages WHERE session_id = $1), 0)
		WHERE id = $1`, id)
	if err != nil {
		return err
	}
	// Only rows whose link changes are written, so that writers of
	// unrelated sessions do not lock each other's rows.
	_, err = tx.Exec(ctx, `
		UPDATE sessions s SET parent_round = l.round FROM (
			SELECT c.id, COALESCE((SELECT MIN(b.round_seq) FROM blocks b
				WHERE b.session_id = c.parent AND b.agent_id = c.agent_id AND b.agent_id != ''), 0) AS round
			FROM sessions c WHERE c.lineage = 'subagent' AND (c.id = $1 OR (c.parent = $1 AND c.parent != ''))) l
		WHERE s.id = l.id AND s.parent_round != l.round`, id)
	return err
}

// ReindexSession implements [cairn.InscriptionStore], in one transaction.
func (s *InscriptionStore) ReindexSession(ctx context.Context, sess *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) (err error) {
	defer s.db.explain(&err)
	return s.db.write(ctx, func(tx *Tx) error { return reindexSession(ctx, tx, sess, rebuild) })
}

func reindexSession(ctx context.Context, tx *Tx, sess *cairn.Session, rebuild func(*cairn.Session, []*cairn.Line) (*cairn.Inscription, error)) error {
	// Lock the session against concurrent inscriptions while it is
	// rebuilt (the lock Inscribe takes first, then the row).
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, "cairn session "+sess.ID); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `SELECT 1 FROM sessions WHERE id = $1 FOR UPDATE`, sess.ID); err != nil {
		return err
	}
	lines, err := findLines(ctx, tx, sess.ID, 0, 0)
	if err != nil {
		return err
	}
	in, err := rebuild(sess, lines)
	if err != nil {
		return given{err}
	}
	if err := deleteIndex(ctx, tx, sess.ID, 0); err != nil {
		return err
	}
	if err := updateLines(ctx, tx, sess.ID, lines); err != nil {
		return err
	}
	if err := insertIndex(ctx, tx, sess.ID, in); err != nil {
		return err
	}
	if err := refreshRoundUsage(ctx, tx, sess.ID, 0); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, `UPDATE sessions SET title = $1, project = $2, version = $3, agent = COALESCE(NULLIF($4, ''), agent) WHERE id = $5`,
		clean(in.Session.Title), clean(in.Session.Project), clean(in.Session.Version), in.Session.Agent, sess.ID); err != nil {
		return err
	}
	return refreshSession(ctx, tx, sess.ID)
}
