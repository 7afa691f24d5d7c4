package surgery_test

import (
	"bufio"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/internal/rusage"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// BenchmarkExport_5000 is a surgical export of a 5,000-round session from
// the SQLite store: compress-before at round Cut (the index table for the
// rounds before it, the rest in full), the summary and the Claude Code
// lines. Import is set-up, not measured.
func BenchmarkExport_5000(b *testing.B) {
	st := mustOpenSamples(b)
	gen := filepath.Join(b.TempDir(), genID+".jsonl")
	writeGenerated(b, gen, 5000, rand.New(rand.NewSource(5000)))
	mustImport(b, st, gen)
	for _, c := range []struct {
		name string
		cut  int
	}{{"Keep10pct", 4501}, {"KeepAll", 1}} {
		b.Run(c.name, func(b *testing.B) {
			benchExport(b, st, c.cut)
		})
	}
}

func benchExport(b *testing.B, st *store, cut int) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	var n int
	lean := st.Store
	lean.LinesOnly = true
	for i := 0; i < b.N; i++ {
		m, err := surgery.CompressBefore(ctx, lean, genID, surgery.Point{Seq: cut}, cairn.FullFidelity)
		if err != nil {
			b.Fatal(err)
		}
		x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m)}
		lines, err := x.Lines(m)
		if err != nil {
			b.Fatal(err)
		}
		n = len(lines)
	}
	b.ReportMetric(float64(n), "lines")
}

// longID is the generated session of long autonomous rounds.
const longID = "7a1e0000-0000-4000-8000-00000000beef"

// writeLong writes a session of n rounds of steps steps each: a prompt,
// steps-1 tool calls each answered by its result, and an answer.
func writeLong(tb testing.TB, path string, n, steps int) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	at := time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)
	uuid, parent, msg := 0, "null", 0
	line := func(typ, message, extra string) {
		uuid++
		at = at.Add(700 * time.Millisecond)
		id := fmt.Sprintf("00000000-0000-4000-8000-%012d", uuid)
		fmt.Fprintf(w, `{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,%s"uuid":%q,"timestamp":%q,"sessionId":%q,"cwd":"/tmp/gen","version":"2.1.330","userType":"external"}`+"\n",
			parent, typ, message, extra, id, at.Format(claudecode.TimeFormat), longID)
		parent = `"` + id + `"`
	}
	usage := `"usage":{"input_tokens":3,"cache_read_input_tokens":20000,"output_tokens":40}`
	for r := 1; r <= n; r++ {
		line("user", fmt.Sprintf(`{"role":"user","content":"Round %d: work through the next part of the plan and report."}`, r), "")
		for s := 1; s < steps; s++ {
			msg++
			tool := fmt.Sprintf("toolu_%08d", msg)
			line("assistant", fmt.Sprintf(`{"id":"msg_%08d","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{"type":"tool_use","id":%q,"name":"Bash","input":{"command":"go test ./pkg%d/..."}}],%s}`, msg, tool, s, usage), "")
			line("user", fmt.Sprintf(`{"role":"user","content":[{"tool_use_id":%q,"type":"tool_result","content":"ok  \tcairn/pkg%d\t0.%03ds\nPASS: %d tests of step %d in round %d","is_error":false}]}`, tool, s, s, s*3, s, r), `"toolUseResult":{"stdout":"ok"},`)
		}
		msg++
		line("assistant", fmt.Sprintf(`{"id":"msg_%08d","type":"message","role":"assistant","model":"claude-opus-4-6","content":[{"type":"text","text":"Round %d done: every package passes."}],%s}`, msg, r, usage), "")
	}
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkExportSteps_5000x40 is the export of a 5,000-round session of
// 40 steps a round (200,000 steps) at the default budget (half the model's
// window): the whole session (Select keeping every round), compress-before
// keeping the last tenth, and revive. The target is under 500 ms.
func BenchmarkExportSteps_5000x40(b *testing.B) {
	ctx := context.Background()
	// $CAIRN_BENCH_CACHE keeps the imported store between runs: generating
	// and importing 400,000 lines is set-up, not what is measured.
	dir := os.Getenv("CAIRN_BENCH_CACHE")
	if dir == "" {
		dir = b.TempDir()
	}
	db := sqlite.NewDB(filepath.Join(dir, "steps-5000x40-v1.db"))
	if err := db.Open(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	st := &store{db: db, Store: surgery.Store{Sessions: sqlite.NewSessionStore(db), Rounds: sqlite.NewRoundStore(db), Lines: sqlite.NewLineStore(db)}}
	if _, err := st.Sessions.FindSessionByID(ctx, longID); err != nil {
		gen := filepath.Join(b.TempDir(), longID+".jsonl")
		writeLong(b, gen, 5000, 40)
		mustImport(b, st, gen)
	}
	lean := st.Store
	lean.LinesOnly = true
	lean.Limits = surgery.Limits{Budget: surgery.AutoBudget}
	for _, c := range []struct {
		name string
		run  func() (*cairn.Materialization, error)
	}{
		{"SelectAll", func() (*cairn.Materialization, error) {
			return surgery.Select(ctx, lean, longID, keepAll, cairn.FullFidelity)
		}},
		{"CompressBefore4501", func() (*cairn.Materialization, error) {
			return surgery.CompressBefore(ctx, lean, longID, surgery.Point{Seq: 4501}, cairn.FullFidelity)
		}},
		{"Revive", func() (*cairn.Materialization, error) {
			return surgery.Revive(ctx, lean, longID, "", "", cairn.FullFidelity)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var lines int
			var tokens int64
			cpu0 := cpuTime()
			for i := 0; i < b.N; i++ {
				m, err := c.run()
				if err != nil {
					b.Fatal(err)
				}
				x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m)}
				out, err := x.Lines(m)
				if err != nil {
					b.Fatal(err)
				}
				lines, tokens = len(out), m.Tokens
			}
			// CPU time of the process per export: on a shared machine wall
			// time mostly measures the neighbours.
			b.ReportMetric(float64((cpuTime()-cpu0).Milliseconds())/float64(b.N), "cpu-ms/op")
			b.ReportMetric(float64(lines), "lines")
			b.ReportMetric(float64(tokens), "tokens")
		})
	}
}

// cpuTime is the user and system time the process has used.
func cpuTime() time.Duration { return rusage.Self() }
