package surgery_test

import (
	"context"
	"math/rand"
	"path/filepath"
	"testing"

	"cairn"
	"cairn/claudecode"
	"cairn/surgery"
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
