package surgery_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

var update = flag.Bool("update", false, "rewrite the golden files")

const (
	tools    = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01" // 3 rounds: auth, migration, benchmark
	subagent = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f02"
	compact  = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f03" // 4 rounds, /compact in round 3
	resumed  = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04" // 3 rounds: the console message
)

type store struct {
	db *sqlite.DB
	surgery.Store
	tags *sqlite.TagStore
}

// mustOpenSamples returns a store holding the sample transcripts, with
// rounds tagged: tools 1 = auth, tools 2 = db, resumed 1-2 = console.
func mustOpenSamples(tb testing.TB) *store {
	tb.Helper()
	db := sqlite.NewDB(filepath.Join(tb.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	st := &store{db: db, Store: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}, tags: sqlite.NewTagStore(db)}
	im := &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: claudecode.Format{}}
	rep, err := im.Import(context.Background(), []string{"../testdata/claudecode"})
	if err != nil || rep.Failed > 0 {
		tb.Fatalf("import: %v %+v", err, rep)
	}
	ctx := context.Background()
	for _, t := range []struct {
		session string
		seqs    []int
		eng     string
	}{{tools, []int{1}, "auth"}, {tools, []int{2}, "db"}, {resumed, []int{1, 2}, "console"}} {
		if err := st.tags.TagRounds(ctx, t.session, t.seqs, t.eng, ""); err != nil {
			tb.Fatal(err)
		}
	}
	return st
}

// linesHash hashes every stored line of every session.
func linesHash(tb testing.TB, st *store) [32]byte {
	tb.Helper()
	ctx := context.Background()
	sessions, _, err := st.Sessions.FindSessions(ctx, cairn.SessionFilter{Subagents: true})
	if err != nil {
		tb.Fatal(err)
	}
	h := sha256.New()
	for _, s := range sessions {
		lines, err := st.Lines.FindLines(ctx, s.ID, 0, 0)
		if err != nil {
			tb.Fatal(err)
		}
		for _, l := range lines {
			fmt.Fprintf(h, "%s %d %d\n", s.ID, l.No, len(l.Raw))
			h.Write(l.Raw)
		}
	}
	var sum [32]byte
	copy(sum[:], h.Sum(nil))
	return sum
}

// counter returns deterministic version 4 uuids, so goldens are stable.
func counter(prefix string) func() string {
	n := 0
	return func() string {
		n++
		return fmt.Sprintf("%08x-0000-4000-8000-%012d", crc(prefix), n)
	}
}

func crc(s string) uint32 {
	var h uint32 = 2166136261
	for i := 0; i < len(s); i++ {
		h = (h ^ uint32(s[i])) * 16777619
	}
	return h
}

// newSessionID is the exported session's id in goldens.
const newSessionID = "0c0ffee0-0000-4000-8000-000000000001"

func TestOperations(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	before := linesHash(t, st)
	partial, _ := cairn.ParseFidelity("partial")
	text, _ := cairn.ParseFidelity("text")
	full := cairn.FullFidelity

	type op func(st surgery.Store) ([]*cairn.Materialization, error)
	one := func(m *cairn.Materialization, err error) ([]*cairn.Materialization, error) {
		return []*cairn.Materialization{m}, err
	}
	for _, c := range []struct {
		name string
		run  op
	}{
		{"compress-before-tools-3", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, s, tools, surgery.Point{Seq: 3}, full))
		}},
		{"compress-before-compact-time", func(s surgery.Store) ([]*cairn.Materialization, error) {
			p, _ := surgery.ParsePoint("2026-11-22T03:36:57.5Z")
			return one(surgery.CompressBefore(ctx, s, compact, p, full))
		}},
		{"compress-before-tools-2-partial", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.CompressBefore(ctx, s, tools, surgery.Point{Seq: 2}, partial))
		}},
		{"compress-engagement-tools-auth", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.CompressEngagement(ctx, s, tools, "auth", full))
		}},
		{"extract-engagement-resumed-console", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.ExtractEngagement(ctx, s, resumed, "console", full))
		}},
		{"extract-engagement-resumed-console-text", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.ExtractEngagement(ctx, s, resumed, "console", text))
		}},
		{"merge-resumed-tools", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.Merge(ctx, s, resumed, tools, full))
		}},
		{"split-tools", func(s surgery.Store) ([]*cairn.Materialization, error) {
			sm, err := surgery.ParseSplitMap("1=shared,2=db,3=bench")
			if err != nil {
				return nil, err
			}
			return surgery.Split(ctx, s, tools, sm, full)
		}},
		{"inject-tools-2", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.Inject(ctx, s, tools, 2, full))
		}},
		{"inject-subagent-1", func(s surgery.Store) ([]*cairn.Materialization, error) {
			return one(surgery.Inject(ctx, s, subagent, 1, full))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := c.run(st.Store)
			if err != nil {
				t.Fatal(err)
			}
			// A Claude Code export reads no blocks: the same lines come out.
			linesOnly := st.Store
			linesOnly.LinesOnly = true
			lean, err := c.run(linesOnly)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range ms {
				name := c.name
				if len(ms) > 1 {
					name += "-" + m.Label
				}
				var md bytes.Buffer
				if err := export.MaterializationMarkdown(&md, m); err != nil {
					t.Fatal(err)
				}
				compare(t, name+".md", md.Bytes())
				x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m), NewUUID: counter(fmt.Sprint(name, i))}
				lines, err := x.Lines(m)
				if err != nil {
					t.Fatal(err)
				}
				if err := claudecode.CheckResumable(newSessionID, lines); err != nil {
					t.Fatalf("not resumable: %v", err)
				}
				checkThinking(t, m, lines)
				compare(t, name+".jsonl", bytes.Join(lines, nil))
				x.NewUUID = counter(fmt.Sprint(name, i))
				leanLines, err := x.Lines(lean[i])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(bytes.Join(leanLines, nil), bytes.Join(lines, nil)) {
					t.Fatal("the export differs when blocks are not loaded")
				}
			}
			if after := linesHash(t, st); after != before {
				t.Fatal("the block store changed")
			}
		})
	}
}

// checkThinking fails if a thinking block of the export is not byte for
// byte in a source line: signatures must never be edited.
func checkThinking(tb testing.TB, m *cairn.Materialization, lines [][]byte) {
	tb.Helper()
	var src []byte
	for _, p := range m.FullPieces() {
		for _, l := range p.Lines {
			src = append(src, l.Raw...)
		}
	}
	for i, l := range lines {
		for rest := l; ; {
			at := bytes.Index(rest, []byte(`{"type":"thinking"`))
			if at < 0 {
				break
			}
			end := bytes.Index(rest[at:], []byte(`"signature":`))
			if end < 0 {
				tb.Fatalf("line %d: thinking without signature", i+1)
			}
			sig := rest[at : at+end+40]
			if !bytes.Contains(src, sig) {
				tb.Fatalf("line %d: thinking block not byte for byte from its source", i+1)
			}
			rest = rest[at+1:]
		}
	}
}

func compare(tb testing.TB, name string, got []byte) {
	tb.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			tb.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("%v (run go test ./surgery -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				tb.Fatalf("%s differs at line %d:\n got: %.300s\nwant: %.300s", path, i+1, gl[i], wl[i])
			}
		}
		tb.Fatalf("%s differs: %d lines, want %d", path, len(gl), len(wl))
	}
}

var _ = time.Second

// TestAdvise_CutCompresses: whatever the window, advice to compress or
// revive names a cut after the first round, so that it compresses
// something.
func TestAdvise_CutCompresses(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	// Two rounds: the recent quarter is the whole session.
	two := filepath.Join(t.TempDir(), genID+".jsonl")
	writeGenerated(t, two, 2, rand.New(rand.NewSource(2)))
	mustImport(t, st, two)
	for _, session := range []string{tools, compact, resumed, genID} {
		for _, window := range []int64{100, 200, 1000, 5000} {
			a, err := surgery.Advise(ctx, st.Store, session, window)
			if err != nil {
				t.Fatal(err)
			}
			if a.Operation != cairn.OpCompressBefore && a.Operation != "revive" {
				continue
			}
			cut := a.Args[len(a.Args)-1]
			if cut == "1" || cut == "0" {
				t.Errorf("%s, window %d: %s cuts at round %s: nothing compressed", session, window, a.Command, cut)
			}
		}
	}
}
