package bench

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/sqlite"
)

// Store is an open SQLite store with the services the measures use.
type Store struct {
	DB       *sqlite.DB
	Importer *inscribe.Importer
	Searcher *sqlite.Searcher
}

// OpenStore opens (creating) the store at path, importing Claude Code
// transcripts.
func OpenStore(path string) (*Store, error) { return OpenStoreFormat(path, claudecode.Format{}) }

// OpenStoreFormat opens (creating) the store at path, importing format.
func OpenStoreFormat(path string, format cairn.Transcript) (*Store, error) {
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		return nil, err
	}
	st := struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}
	return &Store{DB: db, Importer: &inscribe.Importer{Store: st, Format: format}, Searcher: sqlite.NewSearcher(db)}, nil
}

// Close closes the store.
func (s *Store) Close() error { return s.DB.Close() }

// Latencies summarizes durations.
type Latencies []time.Duration

// Percentile returns the p-th percentile (0–100).
func (l Latencies) Percentile(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := append(Latencies(nil), l...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(p / 100 * float64(len(s)-1))
	return s[i]
}

// Queries returns n search queries: single words across the vocabulary's
// frequency ranks (common, middling, rare) and some word pairs.
func (g *Generator) Queries(n int) []string {
	var qs []string
	for i := 0; len(qs) < n; i++ {
		var rank int
		switch i % 4 {
		case 0:
			rank = 10 + g.rng.Intn(90)
		case 1:
			rank = 100 + g.rng.Intn(900)
		case 2:
			rank = 1000 + g.rng.Intn(len(g.Vocab)-1000)
		case 3:
			qs = append(qs, g.Vocab[50+g.rng.Intn(500)]+" "+g.Vocab[50+g.rng.Intn(500)])
			continue
		}
		qs = append(qs, g.Vocab[rank])
	}
	return qs
}

// Search runs queries and returns their latencies and total hits.
func (s *Store) Search(ctx context.Context, queries []string) (Latencies, int, error) {
	var lat Latencies
	var hits int
	for _, q := range queries {
		start := time.Now()
		h, err := s.Searcher.Search(ctx, cairn.SearchQuery{Text: q, Limit: 20})
		if err != nil {
			return nil, 0, fmt.Errorf("search %q: %w", q, err)
		}
		lat = append(lat, time.Since(start))
		hits += len(h)
	}
	return lat, hits, nil
}

// DirSize returns the bytes of *.jsonl files under dir.
func DirSize(dir string) (int64, int, error) {
	var size int64
	var n int
	err := filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && strings.HasSuffix(p, ".jsonl") {
			size += info.Size()
			n++
		}
		return err
	})
	return size, n, err
}
