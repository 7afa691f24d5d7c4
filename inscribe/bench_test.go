package inscribe_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/inscribe"
)

// BenchmarkImport measures import throughput of a 20 MB session into a
// fresh store.
func BenchmarkImport(b *testing.B) {
	data := bigTranscript(b, 20<<20)
	dir := b.TempDir()
	file := filepath.Join(dir, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for i := 0; b.Loop(); i++ {
		st := mustOpenStore(b, filepath.Join(b.TempDir(), "cairn.db"))
		mustImport(b, newImporter(st), file)
	}
}

// BenchmarkImport_Real measures import throughput of the real transcripts
// (sharedTranscripts: the shared testdata beside the repository) into a
// fresh store.
func BenchmarkImport_Real(b *testing.B) {
	var size int64
	filepath.WalkDir(sharedTranscripts, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".jsonl" {
			if info, err := d.Info(); err == nil {
				size += info.Size()
			}
		}
		return nil
	})
	if size == 0 {
		b.Skipf("no transcripts in %s", sharedTranscripts)
	}
	b.SetBytes(size)
	for b.Loop() {
		st := mustOpenStore(b, filepath.Join(b.TempDir(), "cairn.db"))
		mustImport(b, newImporter(st), sharedTranscripts)
	}
}

// BenchmarkImport_WideLine measures the import of one assistant line of
// 100,000 or 1,000,000 content blocks (-bench WideLine/1000000).
func BenchmarkImport_WideLine(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			path := wideTranscript(b, n)
			info, err := os.Stat(path)
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(info.Size())
			for b.Loop() {
				st := mustOpenStore(b, filepath.Join(b.TempDir(), "cairn.db"))
				mustImport(b, newImporter(st), path)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/block")
		})
	}
}

// BenchmarkReimport_Unchanged measures a re-import of a 100 MB session
// that did not change: an import that is not live hashes the whole stored
// prefix to see that none of it changed; a live one (a hook's) reads its
// windows only.
func BenchmarkReimport_Unchanged(b *testing.B) {
	data := bigTranscript(b, 100<<20)
	dir := b.TempDir()
	file := filepath.Join(dir, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl")
	if err := os.WriteFile(file, data, 0o644); err != nil {
		b.Fatal(err)
	}
	st := mustOpenStore(b, filepath.Join(dir, "cairn.db"))
	im := newImporter(st)
	start := time.Now()
	f := mustImport(b, im, file).Files[0]
	b.Logf("first import: %s, %d lines, %v", f.Status, f.Stored, time.Since(start))
	for _, live := range []bool{false, true} {
		b.Run("Live="+strconv.FormatBool(live), func(b *testing.B) {
			im := newImporter(st)
			im.Live = live
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if f := mustImport(b, im, file).Files[0]; f.Status != inscribe.StatusUnchanged {
					b.Fatalf("%+v", f)
				}
			}
		})
	}
}
