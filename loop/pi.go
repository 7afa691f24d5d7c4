package loop

import (
	"bufio"
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/surgery"
)

// Compaction is cairn's compaction of session for a harness that lets
// cairn compact it (pi): the session revived within budget for client, as
// markdown (continuation block, index, the last rounds in full), and the
// materialization it was written from.
func (l *Loop) Compaction(ctx context.Context, session string, budget int64, client string) (string, *cairn.Materialization, error) {
	st, err := l.Open()
	if err != nil {
		return "", nil, err
	}
	sst := st.Surgery()
	sst.Limits = surgery.Limits{Budget: budget, Client: client}
	mat, err := surgery.Revive(ctx, sst, session, "", "", cairn.Fidelity{})
	if err != nil {
		return "", nil, err
	}
	var md strings.Builder
	if err := export.MaterializationMarkdown(&md, mat); err != nil {
		return "", nil, err
	}
	return md.String(), mat, nil
}

// PiBudget is the budget of cairn's compaction for a window and pi's
// reserve: revive's own (half the window), but never past the point where
// pi compacts (window less reserve), so the compacted session does not
// compact again at once; revive's default when pi gives no window.
func PiBudget(window, reserve int64) int64 {
	if window <= 0 {
		return surgery.AutoBudget
	}
	b := window / 2
	if window-reserve > 0 && window-reserve < b {
		b = window - reserve
	}
	return b
}

// A PiLeaf is the branch's last entry as cairn's pi extension sends it:
// its id, entry type and, for a message, its role, why it stopped and its
// tool calls.
type PiLeaf struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Role       string `json:"role"`
	StopReason string `json:"stop_reason"`
	ToolCalls  int    `json:"tool_calls"`
}

// PiFirstKept is the entry pi keeps from after cairn's compaction, whose
// summary holds the last rounds in full: only the branch's last entry when
// it is the assistant's finished reply, with no call waiting for a result
// (the summary, a user message, then the reply, then the next prompt keep
// the roles in turn), else firstKept, where pi would keep from (an
// overflow compaction, whose leaf is a prompt, a tool's result or an error
// pi retries from).
func PiFirstKept(l PiLeaf, firstKept string) string {
	if l.ID != "" && l.Type == "message" && l.Role == "assistant" && l.ToolCalls == 0 && l.StopReason != "error" && l.StopReason != "aborted" {
		return l.ID
	}
	return firstKept
}

// PiSessionID reads the id of a pi session file's header line, which is
// the session's id in the store: the file opened under the rule the
// import applies to a path it is given ([inscribe.Open]), its first line
// read by [pi.Format.Identify] as the import reads it.
func PiSessionID(path string) (string, error) {
	f, err := inscribe.Open(path, nil)
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return "", err
	}
	s, err := pi.Format{}.Identify(path, [][]byte{line})
	if err != nil {
		return "", err
	}
	return s.ID, nil
}
