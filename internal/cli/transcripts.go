package cli

import (
	"iter"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"
)

// transcripts reads every harness's files: a Codex rollout (by its name or
// its first line) as Codex, a Gemini CLI session (likewise) as Gemini, an
// opencode log (its first line a session record) as opencode, a pi session
// (its first line a session header) as pi, anything else as Claude Code. Sessions keep the
// harness that wrote them in Agent, so a rebuild picks the same reader.
type transcripts struct{}

var (
	_ cairn.Transcript = transcripts{}
	_ cairn.Documents  = transcripts{}
	_ cairn.AppendOnly = transcripts{}
)

// Identify implements [cairn.Transcript].
func (transcripts) Identify(path string, head [][]byte) (*cairn.Session, error) {
	if codex.IsRollout(path, head) {
		return codex.Format{}.Identify(path, head)
	}
	if opencode.IsLog(path, head) {
		return opencode.Format{}.Identify(path, head)
	}
	if gemini.IsSession(path, head) {
		return gemini.Format{}.Identify(path, head)
	}
	if pi.IsSession(path, head) {
		return pi.Format{}.Identify(path, head)
	}
	return claudecode.Format{}.Identify(path, head)
}

// NewBuilder implements [cairn.Transcript]. A whole session recorded as
// Claude Code's whose first line is a Codex session_meta or a Gemini CLI
// session's metadata record (a rollout inscribed before cairn read Codex,
// a file an older `serve --watch` read as Claude Code's) is rebuilt as
// that harness's, and its agent corrected: "cairn reindex" repairs such
// stores.
func (transcripts) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	if fromSeq == 0 && s.Agent != cairn.AgentCodex && s.Agent != cairn.AgentOpencode && s.Agent != cairn.AgentGemini && s.Agent != cairn.AgentPi {
		return &sniffer{s: s}
	}
	return formatOf(s.Agent).NewBuilder(s, fromSeq)
}

// A sniffer picks the builder from a session's first line.
type sniffer struct {
	s *cairn.Session
	b cairn.RoundBuilder
}

func (sn *sniffer) Add(l *cairn.Line) string {
	if sn.b == nil {
		switch {
		case l.No != 1:
		case codex.IsRollout("", [][]byte{l.Raw}):
			sn.s.Agent = cairn.AgentCodex
		case gemini.IsSession("", [][]byte{l.Raw}):
			sn.s.Agent = cairn.AgentGemini
		case pi.IsSession("", [][]byte{l.Raw}):
			sn.s.Agent = cairn.AgentPi
		}
		sn.b = formatOf(sn.s.Agent).NewBuilder(sn.s, 0)
	}
	return sn.b.Add(l)
}

func (sn *sniffer) Finish() ([]*cairn.Round, iter.Seq[[]*cairn.Block], []*cairn.MessageUsage) {
	if sn.b == nil {
		sn.b = formatOf(sn.s.Agent).NewBuilder(sn.s, 0)
	}
	return sn.b.Finish()
}

// formatOf returns the reader of an agent's transcripts.
func formatOf(agent string) cairn.Transcript {
	switch agent {
	case cairn.AgentCodex:
		return codex.Format{}
	case cairn.AgentOpencode:
		return opencode.Format{}
	case cairn.AgentGemini:
		return gemini.Format{}
	case cairn.AgentPi:
		return pi.Format{}
	}
	return claudecode.Format{}
}

// Document implements [cairn.Documents]: Gemini CLI's older sessions.
func (transcripts) Document(path string) bool { return gemini.Format{}.Document(path) }

// AppendOnly implements [cairn.AppendOnly]: Gemini CLI's JSONL sessions,
// pi's of format 3.
func (transcripts) AppendOnly(s *cairn.Session, path string) bool {
	switch s.Agent {
	case cairn.AgentGemini:
		return gemini.Format{}.AppendOnly(s, path)
	case cairn.AgentPi:
		return pi.Format{}.AppendOnly(s, path)
	}
	return false
}

// Complete implements [cairn.Documents].
func (transcripts) Complete(last []byte) bool { return gemini.Format{}.Complete(last) }

// parseAgent checks an --agent value: "", claude-code (or claude), codex,
// gemini, opencode or pi.
func parseAgent(s string) (string, error) {
	switch s {
	case "", cairn.AgentCodex, cairn.AgentClaudeCode, cairn.AgentGemini, cairn.AgentOpencode, cairn.AgentPi:
		return s, nil
	case "claude":
		return cairn.AgentClaudeCode, nil
	}
	return "", usageError("--agent must be claude-code, codex, gemini, opencode or pi, got %q", s)
}
