package loop

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

// A writesRecord is what the loop has read of a session's file writes
// from the store: the files, in order of first write, and the round the
// next read starts from (the last one read, which may have grown since).
type writesRecord struct {
	Round int      `json:"round"`
	Line  int      `json:"line,omitempty"` // the round's last line when it was read
	Files []string `json:"files,omitempty"`
	Agent string   `json:"agent,omitempty"` // the session's harness, once looked up
}

// writesPath is where a session's writes record is kept:
// .cairn/context/<session>.writes.json; "" for an id that names no file.
func (l *Loop) writesPath(session string) string {
	return l.contextFile(session, ".writes.json")
}

// contextFile is the file .cairn/context/<session><suffix> where the loop
// keeps what it read of a session; "" for an id that names no file.
func (l *Loop) contextFile(session, suffix string) string {
	if session == "" || strings.ContainsAny(session, `/\.`) {
		return ""
	}
	return filepath.Join(l.Workspace.Root, workspace.Dir, "context", session+suffix)
}

func readWrites(path string) (*writesRecord, bool) {
	data, err := os.ReadFile(path)
	if err != nil {
		return &writesRecord{}, false
	}
	var rec writesRecord
	if json.Unmarshal(data, &rec) != nil {
		return &writesRecord{}, false
	}
	return &rec, true
}

// beginWrites starts a session's writes record at its last stored round
// when it has none, as a run of it starts: what it wrote before cairn's
// hooks first saw it is not read, as its relay changes are not
// ([workspace.Workspace.StartSession]), and a long session imported
// before costs its first turn's end nothing.
func (l *Loop) beginWrites(ctx context.Context, st *Stores, session string) error {
	path := l.writesPath(session)
	if path == "" {
		return nil
	}
	if _, ok := readWrites(path); ok {
		return nil
	}
	rec, err := writesFromLast(ctx, st, session)
	if err != nil {
		return err
	}
	return writeWrites(path, rec)
}

// writesFromLast is a writes record that starts after session's last
// stored round as it is now (none: at the start).
func writesFromLast(ctx context.Context, st *Stores, session string) (*writesRecord, error) {
	rec := &writesRecord{}
	switch last, err := st.Inscription.LastRound(ctx, session); cairn.ErrorCode(err) {
	case "":
		rec.Round, rec.Line = last.Seq, last.LastLine
	case cairn.ENOTFOUND:
	default:
		return nil, err
	}
	return rec, nil
}

// writesLag is how many rounds a writes record may stay behind the
// session when the rounds since wrote no file: it is written again only
// then (or when a file is found), so a turn that wrote nothing replaces
// no file (a temporary file, its write, rename and removal: the most of
// noteWrites at every turn's end), and the next read goes over the rounds
// since it (no blocks read but of rounds that may write files).
const writesLag = 32

func writeWrites(path string, rec *writesRecord) error {
	data, err := json.Marshal(rec)
	if err != nil {
		return err
	}
	return replaceFile(path, data)
}

// sessionWrites returns the files session (its stored rounds, before and
// after the client's compactions) wrote or edited on its main chain, with
// content and without error, relative to the workspace when inside it,
// in order of first write ([cairn.ResultsFromRounds]' artifacts), by its
// harness's tools ([cairn.FileWrites]). It reads only the rounds stored
// since its last call, the last one again when it grew, and of those the
// blocks of the rounds that called a tool that may write files, so each turn's end reads its own round and a session's end
// little more. What it read is kept in the session's writes record.
func (l *Loop) sessionWrites(ctx context.Context, st *Stores, session string) ([]string, error) {
	path := l.writesPath(session)
	rec, known := &writesRecord{}, false
	if path != "" {
		rec, known = readWrites(path)
	}
	if !known {
		// No run of it was seen starting: it is read from its last round
		// on, never whole (a hook's bound; a 1 GB session took 16 s).
		var err error
		if rec, err = writesFromLast(ctx, st, session); err != nil {
			return nil, err
		}
		rec.Line = 0 // its last round is read
	}
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: session, FromSeq: rec.Round})
	if err != nil || len(rounds) == 0 {
		return rec.Files, err
	}
	last := rounds[len(rounds)-1]
	if r := rounds[0]; r.Seq == rec.Round && r.LastLine == rec.Line && rec.Line > 0 {
		rounds = rounds[1:] // read whole before
	}
	if rec.Agent == "" {
		s, err := st.Sessions.FindSessionByID(ctx, session)
		if err != nil {
			return nil, err
		}
		rec.Agent = s.Agent
	}
	files := len(rec.Files)
	var writing []*cairn.Round
	for _, r := range rounds {
		if slices.ContainsFunc(r.Tools, func(t string) bool { return cairn.MayWriteFiles(rec.Agent, t) }) {
			writing = append(writing, r)
		}
	}
	for i := 0; i < len(writing); {
		j := i + 1
		for j < len(writing) && writing[j].Seq == writing[j-1].Seq+1 {
			j++
		}
		run, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: session, FromSeq: writing[i].Seq, ToSeq: writing[j-1].Seq, WithBlocks: true})
		if err != nil {
			return nil, err
		}
		switch r, err := cairn.ResultsFromRounds(run, cairn.ResultsOptions{Root: l.Workspace.Root, Agents: map[string]string{session: rec.Agent}}); {
		case err == nil:
			for _, f := range r.Artifacts {
				if !slices.Contains(rec.Files, f) {
					rec.Files = append(rec.Files, f)
				}
			}
		case cairn.ErrorCode(err) != cairn.ENOTFOUND:
			return nil, err
		}
		i = j
	}
	if path == "" || known && (len(rounds) == 0 || len(rec.Files) == files && last.Seq-rec.Round < writesLag) {
		return rec.Files, nil // nothing new: the record stands
	}
	rec.Round, rec.Line = last.Seq, last.LastLine
	if err := writeWrites(path, rec); err != nil && !errors.Is(err, os.ErrPermission) {
		return nil, err
	}
	return rec.Files, nil
}

// noteWrites reads, at a turn's end, the files session's new rounds wrote
// into its writes record, so that its end reads what is left.
func (l *Loop) noteWrites(ctx context.Context, session string) error {
	st, err := l.Open()
	if err != nil {
		return err
	}
	_, err = l.sessionWrites(ctx, st, session)
	return err
}
