package inscribe_test

import (
	"os"
	"path/filepath"
	"testing"
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
