// Package harnesstest is the suite every harness adapter passes (Claude
// Code, Codex, Gemini CLI, opencode): the same import, export and
// resume cases over a [Harness], which describes one: its reader, sample
// sessions its real client wrote, how to add an unknown field to one of
// its lines, and how to export a materialization and have the real client
// resume it.
//
//   - Lossless: a sample imports byte for byte (the stored lines, of the
//     latest generation, are the file), and again imports nothing.
//   - Incremental: a session imported half, then whole, holds what one
//     import of the whole holds (lines, rounds, blocks); a document the
//     client rewrites whole is a new generation, holding the new file.
//   - Unknown: a line with a field the reader does not know is stored with
//     it, and reads as the line without it.
//   - Resume: revive's output for the harness, written as its client reads
//     sessions, is resumed by the real client, whose request holds the
//     new prompt and the session's last answer.
//
// Run runs them all; harness_test.go runs it over every adapter.
package harnesstest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// A Sample is a session file the harness's real client wrote.
type Sample struct {
	Path string
	// Document: the client rewrites the file whole (Gemini CLI's older
	// .json), so a grown file is a new generation, not an append.
	Document bool
}

// A Harness describes one adapter to the suite.
type Harness struct {
	Name    string
	Agent   string           // the cairn.Agent* its sessions are stored with
	Format  cairn.Transcript // its reader
	Samples []Sample

	// Unknown returns a sample's bytes with a field the reader does not
	// know added to one record, and that field's text.
	Unknown func(data []byte) (changed []byte, field string)

	// Grow returns a document sample as the client rewrites it after
	// one more message (only for Document samples).
	Grow func(data []byte) []byte

	// Resume exports m as a session the harness's real client resumes,
	// has the client resume it with prompt, and returns the request body
	// that carried the prompt. It skips the test (fails in CI) without the
	// client. Nil: the harness is not resumed.
	Resume func(t *testing.T, st surgery.Store, m *cairn.Materialization, prompt string) []byte
}

// Run runs every case over h.
func Run(t *testing.T, h Harness) {
	t.Run("lossless", func(t *testing.T) { lossless(t, h) })
	t.Run("incremental", func(t *testing.T) { incremental(t, h) })
	t.Run("unknown", func(t *testing.T) { unknown(t, h) })
	if h.Resume != nil {
		t.Run("resume", func(t *testing.T) { resume(t, h) })
	}
}

// A Store is a scratch SQLite store with an importer of the harness.
type Store struct {
	DB  *sqlite.DB
	Im  *inscribe.Importer
	Sur surgery.Store
}

// NewStore opens a scratch store importing with format.
func NewStore(tb testing.TB, format cairn.Transcript) *Store {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: format}
	return &Store{DB: db, Im: im, Sur: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}}
}

// Import imports one file and returns its report.
func (s *Store) Import(tb testing.TB, path string) *inscribe.FileReport {
	tb.Helper()
	rep, err := s.Im.Import(context.Background(), []string{path})
	if err != nil || len(rep.Files) != 1 {
		tb.Fatalf("import %s: %v %+v", path, err, rep)
	}
	fr := rep.Files[0]
	if fr.Status == inscribe.StatusFailed {
		tb.Fatalf("import %s failed: %s", path, fr.Error)
	}
	return fr
}

// Stored returns the bytes of a session's latest generation of lines.
func (s *Store) Stored(tb testing.TB, id string) []byte {
	tb.Helper()
	lines, err := s.Sur.Lines.FindLines(context.Background(), id, 0, 0)
	if err != nil {
		tb.Fatal(err)
	}
	var b []byte
	for _, l := range lines {
		b = append(b, l.Raw...)
	}
	return b
}

// Index renders a session's rounds and blocks, for comparing two imports.
func (s *Store) Index(tb testing.TB, id string) string {
	tb.Helper()
	rounds, err := s.Sur.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: id, WithBlocks: true})
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rounds {
		fmt.Fprintf(&b, "round %d lines %d-%d tools %v %q → %q usage %+v\n", r.Seq, r.FirstLine, r.LastLine, r.Tools, r.UserPreview, r.AgentPreview, r.Usage)
		for _, bl := range r.Blocks {
			fmt.Fprintf(&b, "  %d %d %s %s %s %s %v %q\n", bl.Index, bl.LineNo, bl.Kind, bl.Role, bl.ToolName, bl.ToolID, bl.IsError, bl.Content)
		}
	}
	return b.String()
}

func lossless(t *testing.T, h Harness) {
	for _, sm := range h.Samples {
		t.Run(filepath.Base(sm.Path), func(t *testing.T) {
			data, err := os.ReadFile(sm.Path)
			if err != nil {
				t.Fatal(err)
			}
			s := NewStore(t, h.Format)
			fr := s.Import(t, sm.Path)
			if fr.Status != inscribe.StatusNew || fr.Pending != 0 {
				t.Errorf("first import: status %s, %d lines pending", fr.Status, fr.Pending)
			}
			if !bytes.Equal(s.Stored(t, fr.SessionID), data) {
				t.Fatalf("the stored lines are not the file (%d bytes)", len(data))
			}
			sess, err := s.Sur.Sessions.FindSessionByID(context.Background(), fr.SessionID)
			if err != nil {
				t.Fatal(err)
			}
			if sess.Agent != h.Agent || sess.Rounds == 0 {
				t.Errorf("session agent %q with %d rounds, want %q and rounds", sess.Agent, sess.Rounds, h.Agent)
			}
			if again := s.Import(t, sm.Path); again.Status != inscribe.StatusUnchanged || again.Read != 0 {
				t.Errorf("second import: status %s, %d lines read, want unchanged and none", again.Status, again.Read)
			}
		})
	}
}

func incremental(t *testing.T, h Harness) {
	for _, sm := range h.Samples {
		t.Run(filepath.Base(sm.Path), func(t *testing.T) {
			data, err := os.ReadFile(sm.Path)
			if err != nil {
				t.Fatal(err)
			}
			whole := NewStore(t, h.Format)
			id := whole.Import(t, sm.Path).SessionID
			want := whole.Index(t, id)

			path := filepath.Join(t.TempDir(), filepath.Base(sm.Path))
			s := NewStore(t, h.Format)
			if sm.Document {
				if h.Grow == nil {
					t.Skip("no Grow for a document sample")
				}
				if err := os.WriteFile(path, data, 0o644); err != nil {
					t.Fatal(err)
				}
				s.Import(t, path)
				grown := h.Grow(data)
				if err := os.WriteFile(path, grown, 0o644); err != nil {
					t.Fatal(err)
				}
				fr := s.Import(t, path)
				if fr.Status != inscribe.StatusRewritten {
					t.Errorf("the rewritten document imported as %s, want rewritten", fr.Status)
				}
				if !bytes.Equal(s.Stored(t, fr.SessionID), grown) {
					t.Error("the new generation's lines are not the rewritten file")
				}
				all, err := s.Sur.Lines.FindAllLines(context.Background(), fr.SessionID)
				if err != nil || len(all) <= bytes.Count(grown, []byte("\n")) {
					t.Errorf("the first generation is not kept: %d lines in all, %v", len(all), err)
				}
				return
			}
			lines := bytes.SplitAfter(data, []byte("\n"))
			half := bytes.Join(lines[:len(lines)/2], nil)
			// The half ends inside a line: the import leaves it pending.
			half = append(half, lines[len(lines)/2][:len(lines[len(lines)/2])/2]...)
			if err := os.WriteFile(path, half, 0o644); err != nil {
				t.Fatal(err)
			}
			first := s.Import(t, path)
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			fr := s.Import(t, path)
			if fr.Status != inscribe.StatusAppended || first.Pending != 1 {
				t.Errorf("imports: %s with %d pending, then %s; want a line pending, then appended", first.Status, first.Pending, fr.Status)
			}
			if !bytes.Equal(s.Stored(t, fr.SessionID), data) {
				t.Fatal("the stored lines are not the file")
			}
			if got := s.Index(t, fr.SessionID); got != want {
				t.Errorf("imported in two parts, the index differs from one import:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func unknown(t *testing.T, h Harness) {
	for _, sm := range h.Samples {
		t.Run(filepath.Base(sm.Path), func(t *testing.T) {
			data, err := os.ReadFile(sm.Path)
			if err != nil {
				t.Fatal(err)
			}
			changed, field := h.Unknown(data)
			if bytes.Equal(changed, data) || !bytes.Contains(changed, []byte(field)) {
				t.Fatalf("Unknown did not add %q", field)
			}
			path := filepath.Join(t.TempDir(), filepath.Base(sm.Path))
			if err := os.WriteFile(path, changed, 0o644); err != nil {
				t.Fatal(err)
			}
			s := NewStore(t, h.Format)
			fr := s.Import(t, path)
			if !bytes.Equal(s.Stored(t, fr.SessionID), changed) {
				t.Fatal("the line with an unknown field is not stored as written")
			}
			plain := NewStore(t, h.Format)
			want := plain.Index(t, plain.Import(t, sm.Path).SessionID)
			if got := s.Index(t, fr.SessionID); got != want {
				t.Errorf("an unknown field changed what is read:\n got: %s\nwant: %s", got, want)
			}
		})
	}
}

func resume(t *testing.T, h Harness) {
	sm := h.Samples[0]
	s := NewStore(t, h.Format)
	id := s.Import(t, sm.Path).SessionID
	m, err := surgery.Revive(context.Background(), s.Sur, id, "", "", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	answer := ""
	rounds, err := s.Sur.Rounds.FindRounds(context.Background(), cairn.RoundFilter{SessionID: id, WithBlocks: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range rounds[len(rounds)-1].Blocks {
		if b.Kind == cairn.AssistantText && strings.TrimSpace(b.Content) != "" {
			answer = b.Content
		}
	}
	prompt := "E2E harnesstest " + h.Name + ": carry on."
	body := string(h.Resume(t, s.Sur, m, prompt))
	for _, want := range []string{prompt, answer} {
		if !strings.Contains(body, jsonText(want)) {
			t.Errorf("%.80q is not in the request the client sent after resuming", want)
		}
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b, _ := json.Marshal(s)
	return strings.Trim(string(b), `"`)
}

// AddField returns data with field added first in the object of line n
// (1-based) of a JSONL file.
func AddField(data []byte, n int, field string) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	l := lines[n-1]
	i := bytes.IndexByte(l, '{')
	lines[n-1] = append(append(append([]byte{}, l[:i+1]...), []byte(field+",")...), l[i+1:]...)
	return bytes.Join(lines, nil)
}
