package main

import (
	"cairn"
	"cairn/claudecode"
	"cairn/codex"
)

// transcripts reads both harnesses' files: a Codex rollout (by its name or
// its first line) as Codex, anything else as Claude Code. Sessions keep the
// harness that wrote them in Agent, so a rebuild picks the same reader.
type transcripts struct{}

var _ cairn.Transcript = transcripts{}

// Identify implements [cairn.Transcript].
func (transcripts) Identify(path string, head [][]byte) (*cairn.Session, error) {
	if codex.IsRollout(path, head) {
		return codex.Format{}.Identify(path, head)
	}
	return claudecode.Format{}.Identify(path, head)
}

// NewBuilder implements [cairn.Transcript].
func (transcripts) NewBuilder(s *cairn.Session, fromSeq int) cairn.RoundBuilder {
	return formatOf(s.Agent).NewBuilder(s, fromSeq)
}

// formatOf returns the reader of an agent's transcripts.
func formatOf(agent string) cairn.Transcript {
	if agent == cairn.AgentCodex {
		return codex.Format{}
	}
	return claudecode.Format{}
}

// parseAgent checks an --agent value: "", claude-code (or claude) or codex.
func parseAgent(s string) (string, error) {
	switch s {
	case "", cairn.AgentCodex, cairn.AgentClaudeCode:
		return s, nil
	case "claude":
		return cairn.AgentClaudeCode, nil
	}
	return "", usageError("--agent must be claude-code or codex, got %q", s)
}
