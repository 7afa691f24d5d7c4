package sqlite_test

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/rusage"
	"github.com/cairn-dev/cairn/sqlite"
)

// BenchmarkSearch searches a store of 400 sessions × 100 rounds (80,000
// searchable blocks, a 340 MB file) whose words follow a Zipf law, as the
// CLI does (surgery's sessions left out, 20 hits): a word in about half
// the blocks (44,000), one in twenty (3,900), one in a thousand (73).
// Cold opens the store for each search, as a command does (its page
// cache empty); Warm keeps it open, as the viewer and the MCP server do.
// $CAIRN_BENCH_CACHE keeps the store between runs: writing it is set-up,
// not what is measured.
func BenchmarkSearch(b *testing.B) {
	dir := os.Getenv("CAIRN_BENCH_CACHE")
	if dir == "" {
		dir = b.TempDir()
	}
	path := filepath.Join(dir, "search-400x100-v1.db")
	vocab := searchVocab()
	if _, err := os.Stat(path); err != nil {
		writeSearchStore(b, path+".tmp", vocab)
		if err := os.Rename(path+".tmp", path); err != nil {
			b.Fatal(err)
		}
	}
	for _, w := range []struct {
		name string
		rank int
	}{{"Common", 20}, {"Middle", 300}, {"Rare", 10000}} {
		q := cairn.SearchQuery{Text: vocab[w.rank], Limit: 20, NoSurgery: true}
		b.Run(w.name+"/Cold", func(b *testing.B) {
			benchSearch(b, func() []*cairn.Hit {
				db := sqlite.NewDB(path)
				if err := db.Open(); err != nil {
					b.Fatal(err)
				}
				defer db.Close()
				return mustSearch(b, sqlite.NewSearcher(db), q)
			})
		})
		b.Run(w.name+"/Warm", func(b *testing.B) {
			db := sqlite.NewDB(path)
			if err := db.Open(); err != nil {
				b.Fatal(err)
			}
			defer db.Close()
			s := sqlite.NewSearcher(db)
			benchSearch(b, func() []*cairn.Hit { return mustSearch(b, s, q) })
		})
	}
}

func benchSearch(b *testing.B, search func() []*cairn.Hit) {
	var hits int
	cpu0 := cpuTime()
	for b.Loop() {
		hits = len(search())
	}
	// CPU time per search: on a shared machine wall time mostly measures
	// the neighbours.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/1000/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(hits), "hits")
}

func mustSearch(tb testing.TB, s *sqlite.Searcher, q cairn.SearchQuery) []*cairn.Hit {
	tb.Helper()
	hits, err := s.Search(context.Background(), q)
	if err != nil {
		tb.Fatal(err)
	}
	return hits
}

// searchVocab is 20,000 made-up words, most frequent first.
func searchVocab() []string {
	rng := rand.New(rand.NewSource(1))
	syllables := strings.Fields("ba be bi bo bu da de di do du ka ke ki ko ku la le li lo lu ma me mi mo mu na ne ni no nu ra re ri ro ru sa se si so su ta te ti to tu")
	seen := map[string]bool{}
	var vocab []string
	for len(vocab) < 20000 {
		var w strings.Builder
		for range 2 + rng.Intn(3) {
			w.WriteString(syllables[rng.Intn(len(syllables))])
		}
		if !seen[w.String()] {
			seen[w.String()] = true
			vocab = append(vocab, w.String())
		}
	}
	return vocab
}

// writeSearchStore writes the benchmark's store at path: 400 sessions of
// 100 rounds, each a prompt and an answer of 20–300 Zipf-drawn words, one
// session in ten cut by surgery.
func writeSearchStore(tb testing.TB, path string, vocab []string) {
	tb.Helper()
	os.Remove(path)
	db := sqlite.NewDB(path)
	if err := db.Open(); err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	ins, sessions := sqlite.NewInscriptionStore(db), sqlite.NewSessionStore(db)
	rng := rand.New(rand.NewSource(1))
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	text := func() string {
		words := make([]string, 20+rng.Intn(280))
		for i := range words {
			words[i] = vocab[zipf.Uint64()]
		}
		return strings.Join(words, " ")
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for n := range 400 {
		id := fmt.Sprintf("5ea7c400-0000-4000-8000-%012d", n)
		s := &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: fmt.Sprintf("/src/p%d", n%7)}
		in := &cairn.Inscription{Session: s, Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
		for i := 1; i <= 100; i++ {
			at := start.Add(time.Duration(n)*time.Hour + time.Duration(i)*time.Second)
			user, agent := text(), text()
			in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: i, StartedAt: at, EndedAt: at,
				FirstLine: 2*i - 1, LastLine: 2 * i, UserPreview: user[:min(len(user), 80)], AgentPreview: agent[:min(len(agent), 80)]})
			for j, t := range []string{user, agent} {
				no := 2*i - 1 + j
				raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", no, t)
				in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: no, Offset: in.Source.Offset, Raw: []byte(raw),
					Type: "user", UUID: fmt.Sprintf("u-%d", no), Timestamp: at, RoundSeq: i, Status: cairn.LineOK})
				in.Source.Offset += int64(len(raw))
				in.Source.Lines++
			}
			in.Blocks = append(in.Blocks,
				&cairn.Block{SessionID: id, RoundSeq: i, LineNo: 2*i - 1, Role: "user", Kind: cairn.UserText, Timestamp: at, Content: user},
				&cairn.Block{SessionID: id, RoundSeq: i, LineNo: 2 * i, Role: "assistant", Kind: cairn.AssistantText, Timestamp: at, Content: agent})
		}
		if err := ins.Inscribe(context.Background(), in); err != nil {
			tb.Fatal(err)
		}
		if n%10 == 9 {
			if err := sessions.SetLineage(context.Background(), id, cairn.LineageSurgery, []string{fmt.Sprintf("5ea7c400-0000-4000-8000-%012d", n-1)}, cairn.OpCompressBefore, ""); err != nil {
				tb.Fatal(err)
			}
		}
	}
}

// cpuTime is the user and system time the process has used.
func cpuTime() time.Duration { return rusage.Self() }
