// Package storetest is the conformance suite every cairn store backend must
// pass: the SQLite store runs it on a temporary file, PostgreSQL on a
// scratch database. A backend's test calls [Run] with a function that opens
// an empty store.
package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// Store is a backend's implementation of every store interface.
type Store struct {
	Sessions    cairn.SessionStore
	Rounds      cairn.RoundStore
	Lines       cairn.LineStore
	Inscription cairn.InscriptionStore
	Searcher    cairn.Searcher
	Frames      cairn.FrameStore   // nil: the frame tests are skipped
	Missions    cairn.MissionStore // nil: the mission tests are skipped
	Tags        cairn.TagStore
	Engagements cairn.EngagementStore // nil: the engagement tests are skipped
	Keep        cairn.KeepStore
	Stats       cairn.StatsStore

	// Damage spoils the stored bytes of a session's line no, as a disk
	// or a hand might, so that reading them back fails (it may spoil the
	// lines stored with it); nil skips the tests of a damaged store.
	Damage func(tb testing.TB, sessionID string, no int)
}

// Open returns an empty store for one test; the backend closes it in
// tb.Cleanup.
type Open func(tb testing.TB) *Store

// Run runs the whole suite.
func Run(t *testing.T, open Open) {
	t.Run("Session", func(t *testing.T) { testSession(t, open) })
	t.Run("Inscribe", func(t *testing.T) { testInscribe(t, open) })
	t.Run("Lines", func(t *testing.T) { testLines(t, open) })
	t.Run("AllLines", func(t *testing.T) { testAllLines(t, open) })
	t.Run("HostileContent", func(t *testing.T) { testHostileContent(t, open) })
	t.Run("Rounds", func(t *testing.T) { testRounds(t, open) })
	t.Run("Search", func(t *testing.T) { testSearch(t, open) })
	t.Run("SearchTools", func(t *testing.T) { testSearchTools(t, open) })
	t.Run("SearchAccept", func(t *testing.T) { testSearchAccept(t, open) })
	t.Run("SearchNarrow", func(t *testing.T) { testSearchNarrow(t, open) })
	t.Run("Reindex", func(t *testing.T) { testReindex(t, open) })
	t.Run("ReindexDamaged", func(t *testing.T) { testReindexDamaged(t, open) })
	t.Run("FrameStores", func(t *testing.T) { testFrameStores(t, open) })
	t.Run("Tags", func(t *testing.T) { testTags(t, open) })
	t.Run("Lineage", func(t *testing.T) { testLineage(t, open) })
	t.Run("Engagements", func(t *testing.T) { testEngagements(t, open) })
	t.Run("Keep", func(t *testing.T) { testKeep(t, open) })
}

var t0 = time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC)

// session is a fixture: a session with n rounds of two lines each (a
// prompt and an answer) starting at start.
type session struct {
	s      *cairn.Session
	in     *cairn.Inscription
	rounds int
}

func newSession(id, project string, start time.Time, n int, words func(i int) (user, agent string)) *session {
	s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: project}
	in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	for i := 1; i <= n; i++ {
		user, agent := words(i)
		at := start.Add(time.Duration(i) * time.Minute)
		r := &cairn.Round{SessionID: id, Seq: i, StartedAt: at, EndedAt: at.Add(30 * time.Second),
			FirstLine: 2*i - 1, LastLine: 2 * i, UserPreview: user, AgentPreview: agent, Tools: []string{"Read"}}
		in.Rounds = append(in.Rounds, r)
		for j, text := range []string{user, agent} {
			no := 2*i - 1 + j
			raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", no, text)
			in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: no, Offset: in.Source.Offset, Raw: []byte(raw),
				Type: "user", UUID: fmt.Sprintf("u-%d", no), Timestamp: at, RoundSeq: i, Status: cairn.LineOK})
			in.Source.Offset += int64(len(raw))
			in.Source.Lines++
		}
		in.Blocks = append(in.Blocks,
			&cairn.Block{SessionID: id, RoundSeq: i, LineNo: 2*i - 1, Role: "user", Kind: cairn.UserText, Timestamp: at, Content: user},
			&cairn.Block{SessionID: id, RoundSeq: i, LineNo: 2 * i, Index: 1, Role: "assistant", Kind: cairn.Thinking, Timestamp: at, Content: "secret musing " + agent},
			&cairn.Block{SessionID: id, RoundSeq: i, LineNo: 2 * i, Index: 2, Role: "assistant", Kind: cairn.AssistantText, Timestamp: at, Content: agent, MessageID: fmt.Sprintf("m%d", i)},
		)
		in.Messages = append(in.Messages, &cairn.MessageUsage{MessageID: fmt.Sprintf("m%d", i), RoundSeq: i, Usage: cairn.Usage{Input: 10, Output: 5}})
	}
	return &session{s: s, in: in, rounds: n}
}

func plain(i int) (string, string) {
	return fmt.Sprintf("question number %d", i), fmt.Sprintf("answer number %d", i)
}

// MustInscribe writes in or fails the test.
func MustInscribe(tb testing.TB, st *Store, in *cairn.Inscription) {
	tb.Helper()
	if err := st.Inscription.Inscribe(context.Background(), in); err != nil {
		tb.Fatal(err)
	}
}

func wantCode(tb testing.TB, err error, code string) {
	tb.Helper()
	if got := cairn.ErrorCode(err); got != code {
		tb.Fatalf("error code = %q (%v), want %q", got, err, code)
	}
}
