package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/loop"
)

// A piCompaction is what cairn's pi extension sends at
// session_before_compact: the session file, pi's working folder, the
// model's window, pi's compaction settings and the entry pi would keep
// from, and the ids and roles of the branch's last entries.
type piCompaction struct {
	SessionFile      string      `json:"session_file"`
	Cwd              string      `json:"cwd"`
	TokensBefore     int64       `json:"tokens_before"`
	Window           int64       `json:"window"`
	ReserveTokens    int64       `json:"reserve_tokens"`
	FirstKeptEntryID string      `json:"first_kept_entry_id"`
	Leaf             loop.PiLeaf `json:"leaf"`
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
// session revived for pi within [loop.PiBudget] as markdown: continuation
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
	id, err := loop.PiSessionID(in.SessionFile)
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
	l := &loop.Loop{Open: func() (*loop.Stores, error) { return st.loop(), nil }}
	md, mat, err := l.Compaction(ctx, id, loop.PiBudget(in.Window, in.ReserveTokens), cairn.AgentPi)
	if err != nil {
		return err
	}
	return json.NewEncoder(stdout).Encode(piCompactionReply{
		Summary: md, FirstKeptEntryID: loop.PiFirstKept(in.Leaf, in.FirstKeptEntryID), Session: id, Tokens: mat.Tokens, Budget: mat.Budget,
	})
}
