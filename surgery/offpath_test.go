package surgery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// piBranchDir holds the pi session TestGeneratePiBranch writes.
const piBranchDir = "testdata/pi-branch"

// TestGeneratePiBranch rewrites testdata/pi-branch/: a session the real
// pi (the newest release) writes, three prompts, whose second round was
// left at its middle: /tree went back to the result of its first call
// (SessionManager.branchWithSummary, as /tree with a summary does) after
// two more steps had been worked (a write of abandoned.txt and an
// answer), and the third prompt went on from there. The second round's
// last lines lie off the path pi resumes. Run with CAIRN_PI_SAMPLES=1.
func TestGeneratePiBranch(t *testing.T) {
	if os.Getenv("CAIRN_PI_SAMPLES") == "" {
		t.Skip("set CAIRN_PI_SAMPLES=1 to rewrite " + piBranchDir)
	}
	c := pitest.NewestClient(t)
	api := fakeapi.New(
		fakeapi.Turn{Match: "list the files", Steps: [][]fakeapi.Block{
			{{Type: "text", Text: "Listing them."}, {Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo alpha > a.txt && ls"}}},
			{{Type: "text", Text: "There is a.txt."}},
		}},
		fakeapi.Turn{Match: "draft the notes", Steps: [][]fakeapi.Block{
			{{Type: "text", Text: "Writing the first notes."}, {Type: "tool_use", Name: "write", Input: map[string]any{"path": "notes.txt", "content": "first notes\n"}}},
			{{Type: "text", Text: "Adding the zeppelin idea."}, {Type: "tool_use", Name: "write", Input: map[string]any{"path": "abandoned.txt", "content": "zeppelin idea\n"}}},
			{{Type: "text", Text: "Wrote notes.txt and the zeppelin idea in abandoned.txt."}},
		}},
		fakeapi.Turn{Match: "check the notes", Steps: [][]fakeapi.Block{
			{{Type: "tool_use", Name: "read", Input: map[string]any{"path": "notes.txt"}}},
			{{Type: "text", Text: "notes.txt holds the first notes."}},
		}},
	)
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	h.Run(t, c.Bin, "list the files")
	files := h.Sessions(t)
	if len(files) != 1 {
		t.Fatalf("sessions after one prompt: %v", files)
	}
	path := files[0]
	h.Run(t, c.Bin, "draft the notes", "--session", path)
	at := firstResult(t, path, "notes.txt")
	h.Node(t, fmt.Sprintf(`import { SessionManager } from %q;
const sm = SessionManager.open(%q);
sm.branchWithSummary(%q, "Kept the first notes only.");`,
		filepath.Join(c.Package(), "dist", "core", "session-manager.js"), path, at))
	h.Run(t, c.Bin, "check the notes", "--session", path)
	if err := os.RemoveAll(piBranchDir); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(piBranchDir, 0o755); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b = bytes.ReplaceAll(b, []byte(h.Root), []byte("/home/user"))
	if err := os.WriteFile(filepath.Join(piBranchDir, filepath.Base(path)), b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// firstResult returns the id of the first tool result whose text names
// word: the entry the branch goes back to.
func firstResult(t *testing.T, path, word string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(b, []byte("\n")) {
		var e struct {
			ID      string `json:"id"`
			Message struct {
				Role string `json:"role"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &e) == nil && e.Message.Role == "toolResult" && bytes.Contains(line, []byte(word)) {
			return e.ID
		}
	}
	t.Fatalf("%s: no tool result naming %s", path, word)
	return ""
}

// openPiBranch returns a store holding the session of testdata/pi-branch,
// read with pi's format, surgery told its lines off the path pi resumes
// (pi.SessionOffPath), its second round tagged "notes".
func openPiBranch(tb testing.TB) (*store, string) {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	lines := sqlite.NewLineStore(db)
	st := &store{db: db, Store: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: lines,
		OffPath: pi.SessionOffPath(lines)}, tags: sqlite.NewTagStore(db)}
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), lines}, Format: pi.Format{}}
	rep, err := im.Import(context.Background(), []string{piBranchDir})
	if err != nil || rep.Failed > 0 || len(rep.Files) != 1 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	id := rep.Files[0].SessionID
	if err := st.tags.TagRounds(context.Background(), id, []int{2}, "notes", ""); err != nil {
		tb.Fatal(err)
	}
	return st, id
}

// TestOffPath_TrailingLines: a round whose last lines lie off the path pi
// resumes (the person went back with /tree to the result of its first
// call, after it had written abandoned.txt) keeps its prompt and its
// first step, in revive, extract and compress-before, in the
// materialization, its summary and the pi session written (and inject prints it so), and nothing of
// the steps left: not their words, not their write (the ledger), not an
// index entry naming them, not their tokens.
func TestOffPath_TrailingLines(t *testing.T) {
	ctx := context.Background()
	st, id := openPiBranch(t)
	rounds, err := st.Rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: id})
	if err != nil {
		t.Fatal(err)
	}
	var seqs []int
	for _, r := range rounds {
		seqs = append(seqs, r.Seq)
	}
	if fmt.Sprint(seqs) != "[0 1 2 3]" {
		t.Fatalf("rounds %v, want 0-3: the sample changed", seqs)
	}
	small := st.Store
	small.Limits = surgery.Limits{Budget: 20000, Client: cairn.AgentPi}
	for _, c := range []struct {
		name string
		run  func() (*cairn.Materialization, error)
		full bool // round 2 is in full
	}{
		{"revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, st.Store, id, "", "", cairn.FullFidelity)
		}, true},
		{"revive-before-3", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, small, id, "3", "", cairn.FullFidelity)
		}, false},
		{"extract-notes", func() (*cairn.Materialization, error) {
			return surgery.ExtractEngagement(ctx, st.Store, id, "notes", cairn.FullFidelity)
		}, true},
		{"inject-2", func() (*cairn.Materialization, error) {
			return surgery.Inject(ctx, st.Store, id, 2, cairn.FullFidelity)
		}, true},
		{"compress-before-2", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, small, id, surgery.Point{Seq: 2}, cairn.FullFidelity)
		}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			var md bytes.Buffer
			if err := export.MaterializationMarkdown(&md, m); err != nil {
				t.Fatal(err)
			}
			x := &pi.Exporter{SessionID: newSessionID, Cwd: "/home/user/work", Summary: surgery.Summary(m), Now: time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC),
				Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
					return surgery.PieceBlocks(pi.Format{}, m.Source(p.Round.SessionID), p, m.Fidelity), nil
				}}
			lines, err := x.Lines(m)
			if err != nil {
				t.Fatal(err)
			}
			out := bytes.Join(lines, nil)
			for _, what := range [][]byte{md.Bytes(), out} {
				for _, off := range []string{"zeppelin", "abandoned", "Adding the", "2.2", "2.3"} {
					if bytes.Contains(what, []byte(off)) {
						t.Errorf("the output holds %q, of the steps off the path:\n%s", off, what)
					}
				}
			}
			if c.full {
				for _, on := range []string{"draft the notes", "Writing the first notes.", "Successfully wrote 12 bytes to notes.txt"} {
					if !bytes.Contains(md.Bytes(), []byte(on)) {
						t.Errorf("the materialization lacks %q, of round 2 on the path:\n%s", on, md.Bytes())
					}
				}
				for _, on := range []string{"draft the notes", "Writing the first notes.", "Successfully wrote 12 bytes to notes.txt"} {
					if !bytes.Contains(out, []byte(on)) {
						t.Errorf("the pi session lacks %q, of round 2 on the path:\n%s", on, out)
					}
				}
			}
			compare(t, "pi-branch-"+c.name+".md", md.Bytes())
			compare(t, "pi-branch-"+c.name+".jsonl", stableIDs(out))
		})
	}
}

// stableIDs numbers the random entry ids of a pi session in order of
// appearance, so a golden file compares.
func stableIDs(b []byte) []byte {
	ids := map[string]string{}
	return entryIDs.ReplaceAllFunc(b, func(m []byte) []byte {
		sub := entryIDs.FindSubmatch(m)
		n, ok := ids[string(sub[2])]
		if !ok {
			n = fmt.Sprintf("e%07d", len(ids)+1)
			ids[string(sub[2])] = n
		}
		return []byte(fmt.Sprintf(`"%s":"%s"`, sub[1], n))
	})
}

var entryIDs = regexp.MustCompile(`"(id|parentId)":"([0-9a-f]{8})"`)

// longPiSource is a real long session (a Claude Code one, 2.8 MB, one
// round of hours of tool calls), crossed into pi for the benchmark below.
const longPiSource = "../../shared/testdata/transcripts/marot__spotter/long/258c7280-ae70-4798-800f-63464d01a85d.jsonl"

// BenchmarkPiRevive_Long is the revive of the real long session crossed
// into pi (revive --to pi with no cut, as TestRetentionLong makes it) and
// imported as pi's: the materialization at pi's default budget and the pi
// session written. reads/op counts the reads of the session's every line
// for the path pi resumes ([surgery.Store.OffPath]). Import and the
// crossing are set-up, not measured.
func BenchmarkPiRevive_Long(b *testing.B) {
	if _, err := os.Stat(longPiSource); err != nil {
		b.Skipf("no long transcript: %v", err)
	}
	ctx := context.Background()
	st := mustOpenSamples(b)
	mustImport(b, st, longPiSource)
	src, err := surgery.Revive(ctx, surgery.Store{Sessions: st.Sessions, Rounds: st.Rounds, Lines: st.Lines,
		Limits: surgery.Limits{Budget: 400000, BeforeCompaction: surgery.BeforeFull, Client: cairn.AgentPi}}, "258c7280", "", "", cairn.FullFidelity)
	if err != nil {
		b.Fatal(err)
	}
	now := time.Date(2026, 11, 28, 17, 0, 0, 0, time.UTC)
	x := &pi.Exporter{SessionID: newSessionID, Cwd: "/home/user/work", Summary: surgery.Summary(src), Now: now,
		Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
			return surgery.PieceBlocks(claudecode.Format{}, src.Source(p.Round.SessionID), p, src.Fidelity), nil
		}}
	lines, err := x.Lines(src)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, x.FileName(now)), bytes.Join(lines, nil), 0o644); err != nil {
		b.Fatal(err)
	}
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(st.db), sqlite.NewLineStore(st.db)}, Format: pi.Format{}}
	if rep, err := im.Import(ctx, []string{dir}); err != nil || rep.Failed > 0 {
		b.Fatalf("import: %v %+v", err, rep)
	}
	reads := 0
	offPath := pi.SessionOffPath(st.Lines)
	piStore := st.Store
	piStore.OffPath = func(ctx context.Context, s *cairn.Session) (map[int]bool, error) {
		reads++
		return offPath(ctx, s)
	}
	piStore.Limits = surgery.Limits{Client: cairn.AgentPi}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	var n int
	for i := 0; i < b.N; i++ {
		m, err := surgery.Revive(ctx, piStore, newSessionID, "", "", cairn.FullFidelity)
		if err != nil {
			b.Fatal(err)
		}
		out := &pi.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m), Now: now,
			Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
				return surgery.PieceBlocks(pi.Format{}, m.Source(p.Round.SessionID), p, m.Fidelity), nil
			}}
		ls, err := out.Lines(m)
		if err != nil {
			b.Fatal(err)
		}
		n = len(ls)
	}
	b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(reads)/float64(b.N), "reads/op")
	b.ReportMetric(float64(n), "lines")
}

// TestOffPath_PiResumes: the real pi resumes the revive and the extract of
// the session of testdata/pi-branch, and what it sends holds round 2's
// prompt, its first call and that call's result, and nothing of the steps
// left off the path; it breaks none of the Messages API's rules
// (fakeapi.CheckRequest) that pi's own resume of the session keeps: going
// on after a tool result, pi sends two user messages in a row, which the
// API joins.
func TestOffPath_PiResumes(t *testing.T) {
	c := pitest.NewestClient(t)
	ctx := context.Background()
	st, id := openPiBranch(t)
	files, _ := filepath.Glob(filepath.Join(piBranchDir, "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("samples: %v", files)
	}
	original, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	// resume has pi go on from a session file made of lines, and returns
	// the request it sent and what fakeapi.CheckRequest says of it, without
	// the messages' positions.
	resume := func(t *testing.T, name string, lines func(cwd string) []byte) ([]byte, map[string]bool) {
		api := fakeapi.New(fakeapi.Turn{Match: "carry on", Steps: [][]fakeapi.Block{{{Type: "text", Text: "Carrying on."}}}})
		defer api.Close()
		h := pitest.NewHome(t, api.URL)
		path := filepath.Join(h.SessionsDir(), name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, lines(h.Cwd), 0o644); err != nil {
			t.Fatal(err)
		}
		h.Run(t, c.Bin, "carry on", "--session", path)
		req := api.Conversation()
		if req == nil {
			t.Fatal("pi sent no conversation")
		}
		problems := map[string]bool{}
		for _, p := range fakeapi.CheckRequest(req.Body, 0) {
			_, p, _ = strings.Cut(p, ": ")
			problems[p] = true
		}
		return req.Body, problems
	}
	_, own := resume(t, filepath.Base(files[0]), func(cwd string) []byte {
		return bytes.ReplaceAll(original, []byte("/home/user/work"), []byte(cwd))
	})
	for _, k := range []struct {
		name string
		run  func() (*cairn.Materialization, error)
	}{
		{"revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, st.Store, id, "", "", cairn.FullFidelity)
		}},
		{"extract-notes", func() (*cairn.Materialization, error) {
			return surgery.ExtractEngagement(ctx, st.Store, id, "notes", cairn.FullFidelity)
		}},
	} {
		t.Run(k.name, func(t *testing.T) {
			m, err := k.run()
			if err != nil {
				t.Fatal(err)
			}
			now := time.Now()
			x := &pi.Exporter{SessionID: pi.NewSessionID(), Summary: surgery.Summary(m), Now: now,
				Blocks: func(p *cairn.Piece) ([]*cairn.Block, error) {
					return surgery.PieceBlocks(pi.Format{}, m.Source(p.Round.SessionID), p, m.Fidelity), nil
				}}
			body, problems := resume(t, x.FileName(now), func(cwd string) []byte {
				x.Cwd = cwd
				lines, err := x.Lines(m)
				if err != nil {
					t.Fatal(err)
				}
				return bytes.Join(lines, nil)
			})
			for p := range problems {
				if !own[p] {
					t.Errorf("pi's request: %s (its resume of the session itself: %v)", p, own)
				}
			}
			for _, on := range []string{"draft the notes", "Writing the first notes.", "Successfully wrote 12 bytes to notes.txt", "carry on"} {
				if !bytes.Contains(body, []byte(on)) {
					t.Errorf("pi's request lacks %q:\n%s", on, body)
				}
			}
			for _, off := range []string{"zeppelin", "abandoned", "No result provided"} {
				if bytes.Contains(body, []byte(off)) {
					t.Errorf("pi's request holds %q:\n%s", off, body)
				}
			}
		})
	}
}
