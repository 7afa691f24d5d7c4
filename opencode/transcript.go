// Package opencode reads and writes opencode's sessions. opencode (the
// opencode-ai package) keeps them in its data folder ($XDG_DATA_HOME/opencode):
// up to 1.1 as JSON files under storage/ (session/<project>/<id>.json,
// message/<session>/<id>.json, part/<message>/<id>.json), from 1.2 as rows
// of opencode.db (session, message, part; each message's and part's JSON
// in a data column), both updated in place while a reply streams.
//
// cairn keeps append-only lines, so a session is read as its canonical log
// (mirror.go): one [Record] a line, the session then every message
// followed by its parts, appended to as the session grows. This package
// turns logs into rounds, steps and blocks (a user message starts a round,
// an assistant message is a step), and writes a materialization back into
// opencode's store as a session the client continues (export.go).
package opencode

import (
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Format is the canonical log of an opencode session. It implements
// [cairn.Transcript].
type Format struct{}

var _ cairn.Transcript = Format{}

// IsLog reports whether a file is an opencode log: its first line that is
// not blank is a session record.
func IsLog(path string, head [][]byte) bool {
	for _, raw := range head {
		r, status := parseRecord(raw)
		if status == cairn.LineBlank {
			continue
		}
		return r != nil && r.Kind == KindSession && strings.HasPrefix(r.ID, "ses_")
	}
	return false
}

// Identify implements [cairn.Transcript]: the session named by the log's
// first record, else by the file's name (ses_….jsonl).
func (Format) Identify(path string, head [][]byte) (*cairn.Session, error) {
	s := &cairn.Session{Agent: cairn.AgentOpencode, Lineage: cairn.LineageImport, Path: path}
	for _, raw := range head {
		r, _ := parseRecord(raw)
		if r == nil || r.Kind != KindSession {
			continue
		}
		noteSession(s, r)
		break
	}
	if s.ID == "" {
		if base := strings.TrimSuffix(filepath.Base(path), ".jsonl"); strings.HasPrefix(base, "ses_") {
			s.ID = base
		}
	}
	if s.ID == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "%s: not an opencode log: no session record and no ses_ id in the name", path)
	}
	return s, nil
}

// noteSession copies what a session record says onto s. A sub-agent's
// session (one a task call spawned) names its parent.
func noteSession(s *cairn.Session, r *Record) {
	ss := sessionOf(r)
	if s.ID == "" {
		s.ID = ss.ID
	}
	if ss.Directory != "" {
		s.Project = ss.Directory
	}
	if ss.Version != "" {
		s.Version = ss.Version
	}
	if ss.Title != "" {
		s.Title = ss.Title
	}
	if ss.ParentID != "" && s.Lineage == cairn.LineageImport {
		s.Lineage, s.Parent, s.AgentID = cairn.LineageSubagent, ss.ParentID, ss.ID
	}
}

// NewBuilder implements [cairn.Transcript].
func (Format) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return newBuilder(s, fromSeq)
}
