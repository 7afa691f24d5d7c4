// Package claudecode reads and writes Claude Code transcripts: the JSONL
// files under ~/.claude/projects/, one per session, with subagents beside
// them (2.0.x) or under <session>/subagents/ (2.1.x).
//
// Lines are kept verbatim; this package parses them into rounds and blocks
// and knows the client's rules: which user lines are real prompts, how
// subagents link to their parent, how usage repeats across a message's lines.
package claudecode

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// Format is the Claude Code transcript format. It implements
// [cairn.Transcript].
type Format struct{}

var _ cairn.Transcript = Format{}

// Identify implements [cairn.Transcript]. A main session is named by its
// file (Claude Code names a file after its session), else by the sessionId
// of its lines. A subagent's file holds its parent's sessionId; its own ID
// is the parent's followed by "-agent-" and its agent id.
func (Format) Identify(path string, head [][]byte) (*cairn.Session, error) {
	stem := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	s := &cairn.Session{Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Path: path}
	var first *entry
	for _, raw := range head {
		e, status := parseLine(raw)
		if e != nil && status != cairn.LineInvalidJSON && chainType(e.Type) && e.SessionID != "" {
			first = e
			break
		}
	}
	subagent := strings.HasPrefix(stem, "agent-")
	if first != nil {
		s.Project, s.Version, s.GitBranch = first.Cwd, first.Version, first.GitBranch
		subagent = subagent || (first.IsSidechain && first.AgentID != "")
	}
	switch {
	case subagent:
		parent := ""
		if first != nil {
			parent = first.SessionID
		}
		if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" && uuid.Valid(filepath.Base(filepath.Dir(dir))) {
			parent = filepath.Base(filepath.Dir(dir))
		}
		agentID := strings.TrimPrefix(stem, "agent-")
		if first != nil && first.AgentID != "" {
			agentID = first.AgentID
		}
		if parent == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "%s: a subagent transcript without a sessionId", path)
		}
		s.ID, s.Parent, s.AgentID, s.Lineage = parent+"-agent-"+agentID, parent, agentID, cairn.LineageSubagent
	case uuid.Valid(stem):
		s.ID = stem
	case first != nil:
		s.ID = first.SessionID
	default:
		s.ID = stem
	}
	return s, nil
}

// NewBuilder implements [cairn.Transcript].
func (Format) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return newBuilder(s, fromSeq)
}

func snapshotTime(raw []byte) time.Time {
	var v struct {
		Snapshot struct {
			Timestamp time.Time `json:"timestamp"`
		} `json:"snapshot"`
	}
	unmarshal(raw, &v)
	return v.Snapshot.Timestamp.UTC()
}

// ProjectsDir returns the folder where Claude Code keeps transcripts for
// the given home directory.
func ProjectsDir(home string) string { return filepath.Join(home, ".claude", "projects") }

// DefaultProjectsDir returns ProjectsDir of the current user's home.
func DefaultProjectsDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return ProjectsDir(home), nil
}

// projectDirMax is the longest project folder name Claude Code writes
// whole; a longer one is cut there and told apart by a hash.
const projectDirMax = 200

// ProjectDirName returns the folder name Claude Code uses for a working
// directory, on every OS (C:\Users\x\proj is C--Users-x-proj): every
// UTF-16 code unit that is not an ASCII letter or digit becomes '-' (a
// character outside the BMP, two units, becomes "--"), and a name longer
// than 200 is cut to 200 and followed by '-' and the base-36 of the
// absolute value of the path's 32-bit string hash (h = h*31 + unit), as
// the client does (2.1.197 to 2.1.330 at least).
func ProjectDirName(cwd string) string {
	var b strings.Builder
	b.Grow(len(cwd))
	for _, r := range cwd {
		switch {
		case r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'):
			b.WriteRune(r)
		case r > 0xFFFF:
			b.WriteString("--")
		default:
			b.WriteByte('-')
		}
	}
	name := b.String()
	if len(name) <= projectDirMax {
		return name
	}
	return name[:projectDirMax] + "-" + strconv.FormatInt(abs(int64(javaHash(cwd))), 36)
}

// javaHash is the client's string hash: h = h*31 + c over the UTF-16 code
// units, in 32 bits.
func javaHash(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = h*31 + int32(u)
	}
	return h
}

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}
