// Package codex reads and writes Codex CLI rollouts: the JSONL files under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl (CODEX_HOME
// defaults to ~/.codex), one per thread, sub-agent threads beside their
// parent's.
//
// Lines are kept verbatim; this package parses them into rounds and blocks
// and knows the client's rules: which user messages are real prompts (not
// the environment context or instructions Codex injects), which items make
// one model turn (a step), how usage is reported once per response. It reads
// every era it knows: first-era files whose lines are bare items, the
// {timestamp, type, payload} lines of later builds, with or without ordinal,
// and compacted lines.
package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/uuid"
)

// Format is the Codex rollout format. It implements [cairn.Transcript].
type Format struct{}

var _ cairn.Transcript = Format{}

var (
	rolloutRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^rollout-.*-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$`)
	})
)

// IsRollout reports whether a file is a Codex rollout: its name
// (rollout-…-<uuid>.jsonl) or its first line (a session_meta line, or a
// first-era header) says so.
func IsRollout(path string, head [][]byte) bool {
	if rolloutRE().MatchString(filepath.Base(path)) {
		return true
	}
	for _, raw := range head {
		p, status := parseLine(raw)
		if status == cairn.LineBlank {
			continue
		}
		return p != nil && p.kind == "session_meta" && p.item.ID != "" && uuid.Valid(p.item.ID)
	}
	return false
}

// Identify implements [cairn.Transcript]. A thread is named by the id of its
// session_meta, else by the uuid in its file name. A sub-agent thread
// (session_meta source {"subagent": {"thread_spawn": {"parent_thread_id":
// …}}}) keeps its own id and names its parent.
func (Format) Identify(path string, head [][]byte) (*cairn.Session, error) {
	s := &cairn.Session{Agent: cairn.AgentCodex, Lineage: cairn.LineageImport, Path: path}
	for _, raw := range head {
		p, _ := parseLine(raw)
		if p == nil || p.kind != "session_meta" {
			continue
		}
		s.ID, s.Project, s.Version = p.item.ID, p.item.Cwd, p.item.Version
		if p.item.Git != nil {
			s.GitBranch = p.item.Git.Branch
		}
		if parent := parentThread(p.item.Source); parent != "" {
			s.Lineage, s.Parent, s.AgentID = cairn.LineageSubagent, parent, s.ID
		}
		break
	}
	if s.ID == "" {
		if m := rolloutRE().FindStringSubmatch(filepath.Base(path)); m != nil {
			s.ID = m[1]
		}
	}
	if s.ID == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "%s: not a Codex rollout: no session_meta line and no uuid in the name", path)
	}
	return s, nil
}

// parentThread returns the parent thread a sub-agent's source names.
func parentThread(source json.RawMessage) string {
	var src struct {
		Subagent json.RawMessage `json:"subagent"`
	}
	if json.Unmarshal(source, &src) != nil || len(src.Subagent) == 0 {
		return ""
	}
	var kinds map[string]struct {
		ParentThreadID string `json:"parent_thread_id"`
	}
	if json.Unmarshal(src.Subagent, &kinds) != nil {
		return ""
	}
	for _, k := range kinds {
		if k.ParentThreadID != "" {
			return k.ParentThreadID
		}
	}
	return ""
}

// NewBuilder implements [cairn.Transcript].
func (Format) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return newBuilder(s, fromSeq)
}

// Home returns Codex's folder: $CODEX_HOME if getenv gives one, else
// ~/.codex under home.
func Home(getenv func(string) string, home string) string {
	if h := getenv("CODEX_HOME"); h != "" {
		return h
	}
	return filepath.Join(home, ".codex")
}

// SessionsDir returns the folder of rollouts under a Codex home.
func SessionsDir(codexHome string) string { return filepath.Join(codexHome, "sessions") }

// DefaultSessionsDir returns the sessions folder of $CODEX_HOME or ~/.codex.
func DefaultSessionsDir() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil && os.Getenv("CODEX_HOME") == "" {
		return "", err
	}
	return SessionsDir(Home(os.Getenv, home)), nil
}

// injected reports whether a user message's text is context Codex wrote,
// not the user's words: a whole block wrapped in one tag
// (<environment_context>…</environment_context>, <user_instructions>,
// <turn_aborted>, <subagent_notification>, …) or the AGENTS.md preamble.
func injected(text string) bool {
	t := strings.TrimSpace(text)
	if strings.HasPrefix(t, "# AGENTS.md instructions") || strings.HasPrefix(t, "<INSTRUCTIONS>") {
		return true
	}
	m := openTag().FindStringSubmatch(t)
	return m != nil && strings.HasSuffix(t, "</"+m[1]+">")
}

var openTag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^<([a-zA-Z_][a-zA-Z0-9_ -]*)>`) })
