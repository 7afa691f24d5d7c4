package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"cairn"
	"cairn/export"
	"cairn/surgery"
)

// A piCompaction is what cairn's pi extension sends at
// session_before_compact: the session file, pi's working folder, the
// model's window, pi's compaction settings and the entry pi would keep
// from, and the ids and roles of the branch's last entries.
type piCompaction struct {
	SessionFile      string     `json:"session_file"`
	Cwd              string     `json:"cwd"`
	TokensBefore     int64      `json:"tokens_before"`
	Window           int64      `json:"window"`
	ReserveTokens    int64      `json:"reserve_tokens"`
	FirstKeptEntryID string     `json:"first_kept_entry_id"`
	Leaf             piLeafInfo `json:"leaf"`
}

// A piLeafInfo is the branch's last entry: its id, entry type and, for a
// message, its role, why it stopped and its tool calls.
type piLeafInfo struct {
	ID         string `json:"id"`
	Type       string `json:"type"`
	Role       string `json:"role"`
	StopReason string `json:"stop_reason"`
	ToolCalls  int    `json:"tool_calls"`
}

// A piCompactionReply is cairn's compaction: the summary pi puts first in
// the context and the entry pi keeps from.
type piCompactionReply struct {
	Summary          string `json:"summary"`
	FirstKeptEntryID string `json:"first_kept_entry_id"`
	Session          string `json:"session"`
	Tokens           int64  `json:"tokens"`
	Budget           int64  `json:"budget"`
}

// runPiHook runs "cairn hook --agent pi compact": it inscribes the pi
// session and prints cairn's compaction of it (piCompactionReply), the
// session revived for pi within [piBudget] as markdown: continuation
// block, index, the last rounds in full. Any failure exits non-zero and
// the extension lets pi compact by itself.
func (m *Main) runPiHook(ctx context.Context, args []string) error {
	if len(args) != 1 || args[0] != "compact" {
		return &hookError{fmt.Errorf("hook --agent pi takes one EVENT: compact")}
	}
	if err := m.piCompact(ctx); err != nil {
		return &hookError{fmt.Errorf("hook pi compact: %s", strings.Join(strings.Fields(errorText(err)), " "))}
	}
	return nil
}

func (m *Main) piCompact(ctx context.Context) error {
	var in piCompaction
	if err := json.NewDecoder(m.Stdin).Decode(&in); err != nil {
		return err
	}
	if in.SessionFile == "" {
		return fmt.Errorf("no session_file")
	}
	if in.Cwd != "" {
		cwd := in.Cwd
		m.Getwd = func() (string, error) { return cwd, nil }
	}
	id, err := piSessionID(in.SessionFile)
	if err != nil {
		return err
	}
	stdout := m.Stdout
	m.Stdout = io.Discard
	err = m.runImport(ctx, []string{in.SessionFile})
	m.Stdout = stdout
	if err != nil {
		return err
	}
	st, err := m.openStore("")
	if err != nil {
		return err
	}
	defer st.Close()
	sst := st.surgery()
	sst.Limits = surgery.Limits{Budget: piBudget(in.Window, in.ReserveTokens), Client: cairn.AgentPi}
	mat, err := surgery.Revive(ctx, sst, id, "", "", cairn.Fidelity{})
	if err != nil {
		return err
	}
	var md strings.Builder
	if err := export.MaterializationMarkdown(&md, mat); err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(piCompactionReply{
		Summary: md.String(), FirstKeptEntryID: piFirstKept(in), Session: id, Tokens: mat.Tokens, Budget: mat.Budget,
	})
}

// piBudget is the budget of cairn's compaction for a window and pi's
// reserve: revive's own (half the window), but never past the point where
// pi compacts (window less reserve), so the compacted session does not
// compact again at once; revive's default when pi gives no window.
func piBudget(window, reserve int64) int64 {
	if window <= 0 {
		return surgery.AutoBudget
	}
	b := window / 2
	if window-reserve > 0 && window-reserve < b {
		b = window - reserve
	}
	return b
}

// piFirstKept is the entry pi keeps from after cairn's compaction, whose
// summary holds the last rounds in full: only the branch's last entry when
// it is the assistant's finished reply, with no call waiting for a result
// (the summary, a user message, then the reply, then the next prompt keep
// the roles in turn), else where pi would keep from (an overflow
// compaction, whose leaf is a prompt, a tool's result or an error pi
// retries from).
func piFirstKept(in piCompaction) string {
	l := in.Leaf
	if l.ID != "" && l.Type == "message" && l.Role == "assistant" && l.ToolCalls == 0 && l.StopReason != "error" && l.StopReason != "aborted" {
		return in.Leaf.ID
	}
	return in.FirstKeptEntryID
}

// piSessionID reads the id of a pi session file's header line, which is
// the session's id in the store.
func piSessionID(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	line, err := r.ReadBytes('\n')
	if err != nil && len(line) == 0 {
		return "", err
	}
	var h struct {
		Type string `json:"type"`
		ID   string `json:"id"`
	}
	if err := json.Unmarshal(line, &h); err != nil || h.Type != "session" || h.ID == "" {
		return "", fmt.Errorf("%s: no pi session header", path)
	}
	return h.ID, nil
}
