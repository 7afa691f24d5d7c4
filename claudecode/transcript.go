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
	"regexp"
	"strings"
	"sync"
	"time"

	"cairn"
)

// Format is the Claude Code transcript format. It implements
// [cairn.Transcript].
type Format struct{}

var _ cairn.Transcript = Format{}

var uuidRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
})

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
		if dir := filepath.Dir(path); filepath.Base(dir) == "subagents" && uuidRE().MatchString(filepath.Base(filepath.Dir(dir))) {
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
	case uuidRE().MatchString(stem):
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

var nonAlnum = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9]`) })

// ProjectDirName returns the folder name Claude Code uses for a working
// directory: every character that is not a letter or digit becomes '-'.
func ProjectDirName(cwd string) string { return nonAlnum().ReplaceAllString(cwd, "-") }
