package cli

import (
	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/retention"
)

// evalClient is the client the eval resumes a session in: pi for a pi
// session (what it loads after its last compaction, its own or cairn's),
// else Claude Code.
func evalClient(s *cairn.Session) retention.Client {
	if s.Agent == cairn.AgentPi {
		return piClient(s)
	}
	return claudeClient(s)
}

// piClient is pi as the eval needs it: what it loads of a session's
// lines ([pi.LoadedView]), and a materialization written as a session it
// resumes.
func piClient(s *cairn.Session) retention.Client {
	return retention.Client{
		Load: func(lines [][]byte) retention.Loaded {
			v := pi.LoadedView(lines)
			return retention.Loaded{Text: v.Text, Summary: v.Summary, FromLine: v.FromLine}
		},
		Write: func(mat *cairn.Materialization, summary string) ([][]byte, error) {
			x := &pi.Exporter{SessionID: pi.NewSessionID(), Cwd: s.Project, Summary: summary, Blocks: nativeBlocksAt(mat.Fidelity, mat)}
			return x.Lines(mat)
		},
	}
}

// evalRounds is rounds as the eval's probe rules read them: a pi session's
// calls of bash, read, edit and write as Claude Code's ([pi.ClaudeBlocks]),
// whose tool names the rules know, so its commands and files are probed.
func evalRounds(s *cairn.Session, rounds []*cairn.Round) []*cairn.Round {
	if s.Agent != cairn.AgentPi {
		return rounds
	}
	for _, r := range rounds {
		r.Blocks = pi.ClaudeBlocks(r.Blocks)
	}
	return rounds
}
