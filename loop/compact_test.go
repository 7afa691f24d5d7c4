package loop

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/bench"
)

// countingRounds counts the rounds read with their blocks.
type countingRounds struct {
	cairn.RoundStore
	read int
}

func (c *countingRounds) FindRounds(ctx context.Context, f cairn.RoundFilter) ([]*cairn.Round, error) {
	rs, err := c.RoundStore.FindRounds(ctx, f)
	if f.WithBlocks {
		c.read += len(rs)
	}
	return rs, err
}

func (c *countingRounds) FindRound(ctx context.Context, session string, seq int) (*cairn.Round, error) {
	c.read++
	return c.RoundStore.FindRound(ctx, session, seq)
}

func (c *countingRounds) FindRoundPage(ctx context.Context, session string, seq int, page cairn.BlockPage) (*cairn.Round, int, error) {
	c.read++
	return c.RoundStore.FindRoundPage(ctx, session, seq, page)
}

// TestPreCompactAuto_Bounded (issue #42, hooks stay fast): the context of
// a session many times revive's budget runs out, no finished frame in it:
// the compaction hook reads the blocks of the rounds the revived session
// can hold, newest first, not of every round (weighing finished frames
// read them all: most of a ten-second hook on the 1 GB session), and
// prepares the revived session or says why there is none.
func TestPreCompactAuto_Bounded(t *testing.T) {
	l := newLoop(t)
	g, err := bench.NewGenerator("../testdata/claudecode", 1)
	if err != nil {
		t.Fatal(err)
	}
	const session = "0d0d0d0d-0000-4000-8000-00000000c0de"
	var transcript bytes.Buffer
	at := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; i < 4000; i++ {
		transcript.Write(g.Round(session, at.Add(time.Duration(i)*time.Minute)))
	}
	path := filepath.Join(l.Wd, session+".jsonl")
	if err := os.WriteFile(path, transcript.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	l.Workspace.Session = session
	var exported []*cairn.Materialization
	l.Export = func(ctx context.Context, st *Stores, mat *cairn.Materialization, dir, cwd string) (string, error) {
		exported = append(exported, mat)
		return "claude --resume revived", nil
	}
	ev := Event{Kind: PreCompact, Trigger: "manual", Harness: ClaudeCode, Session: session, Transcript: path, Cwd: l.Wd}
	handle(t, l, ev) // inscribes the session
	st, _ := l.Open()
	s, err := st.Sessions.FindSessionByID(context.Background(), session)
	if err != nil {
		t.Fatal(err)
	}
	total, err := st.Rounds.CountRounds(context.Background(), cairn.RoundFilter{SessionID: s.ID})
	if err != nil {
		t.Fatal(err)
	}
	counter := &countingRounds{RoundStore: st.Rounds}
	st.Rounds = counter
	defer func() { st.Rounds = counter.RoundStore }()
	ev.Trigger = "auto"
	handle(t, l, ev)
	if counter.read*2 > total {
		t.Errorf("the compaction read the blocks of %d rounds of %d, want at most half", counter.read, total)
	}
	board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(exported) == 1 && exported[0].Tokens <= exported[0].Budget && strings.Contains(string(board), "revived within budget: claude --resume revived"):
	case len(exported) == 0 && strings.Contains(string(board), "not revived: "):
	default:
		t.Errorf("%d revived sessions exported; the board:\n%s", len(exported), board)
	}
	t.Logf("%d rounds, blocks read of %d, %d exported", total, counter.read, len(exported))
}
