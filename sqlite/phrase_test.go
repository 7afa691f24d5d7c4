package sqlite_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/sqlite"
)

// searchStore inscribes one session whose round i (from 1) is the prompt
// texts[i-1] with the answer "ok", and returns its searcher and id.
func searchStore(t *testing.T, texts ...string) (*sqlite.Searcher, string) {
	t.Helper()
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "s.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	id := "5ea7c400-0000-4000-8000-000000000014"
	in := &cairn.Inscription{Session: &cairn.Session{ID: id, Agent: cairn.AgentClaudeCode, Lineage: cairn.LineageImport, Project: "/p"},
		Source: cairn.Source{SessionID: id, Path: "/t/" + id + ".jsonl"}}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i, text := range texts {
		seq := i + 1
		in.Rounds = append(in.Rounds, &cairn.Round{SessionID: id, Seq: seq, StartedAt: at, EndedAt: at, FirstLine: seq, LastLine: seq})
		raw := fmt.Sprintf(`{"n":%d,"text":%q}`+"\n", seq, text)
		in.Lines = append(in.Lines, &cairn.Line{SessionID: id, No: seq, Offset: in.Source.Offset, Raw: []byte(raw),
			Type: "user", UUID: fmt.Sprintf("u-%d", seq), Timestamp: at, RoundSeq: seq, Status: cairn.LineOK})
		in.Source.Offset += int64(len(raw))
		in.Source.Lines++
		in.Blocks = append(in.Blocks, &cairn.Block{SessionID: id, RoundSeq: seq, LineNo: seq, Role: "user", Kind: cairn.UserText, Timestamp: at, Content: text})
	}
	if err := sqlite.NewInscriptionStore(db).Inscribe(context.Background(), in); err != nil {
		t.Fatal(err)
	}
	return sqlite.NewSearcher(db), id
}

// rounds returns the rounds of the hits for text, best first.
func rounds(t *testing.T, s *sqlite.Searcher, text string) []int {
	t.Helper()
	hits, err := s.Search(context.Background(), cairn.SearchQuery{Text: text})
	if err != nil {
		t.Fatalf("%q: %v", text, err)
	}
	var out []int
	for _, h := range hits {
		out = append(out, h.RoundSeq)
	}
	return out
}

// TestSearch_RankAbout: a block about the words ranks before a later,
// longer one that mentions them in passing; without positions in the
// index this is its length, as bm25 with positions ranked it before
// (migration 0014).
func TestSearch_RankAbout(t *testing.T) {
	passing := "While reading the changelog I went through " + strings.Repeat("several unrelated notes about the build, the release and the docs, ", 12) +
		"and somewhere the tokenizer came up once before we moved on to lunch."
	s, _ := searchStore(t, "the tokenizer splits CJK text into single characters", passing, "nothing to see here")
	if got := rounds(t, s, "tokenizer"); len(got) != 2 || got[0] != 1 || got[1] != 2 {
		t.Fatalf("tokenizer: rounds %v, want [1 2] (the block about it first)", got)
	}
	hits, _ := s.Search(context.Background(), cairn.SearchQuery{Text: "tokenizer"})
	if hits[0].Rank >= hits[1].Rank {
		t.Fatalf("ranks %v, %v: want the first lower (better)", hits[0].Rank, hits[1].Rank)
	}
}

// TestSearch_Phrases: a word the tokenizer splits (a run of CJK
// characters, snake_case, a prefix of one) finds the blocks that hold its
// tokens in a row, and none that holds them apart or out of order.
func TestSearch_Phrases(t *testing.T) {
	s, _ := searchStore(t,
		"call parse_config before anything else",    // 1
		"the config we parse is in the repo",        // 2: both words, apart
		"設定ファイルを読み込みます",                             // 3
		"ファイルの設定を確認します",                             // 4: the same characters, another order
		"parse_configuration moved to its own file", // 5
		"Déjà vu: the café's ÉCLAIR recipe",         // 6
	)
	for _, c := range []struct {
		query string
		want  []int
	}{
		{"parse_config", []int{5, 1}},    // a prefix: parse_configuration too, newest first at equal rank
		{"parse_config*", []int{5, 1}},   // the same, said
		{"parse_co", []int{5, 1}},        // the last token a prefix
		{"config parse", []int{1, 2, 5}}, // words, not a phrase
		{"設定ファイル", []int{3}},
		{"ファイルの設定", []int{4}},
		{"ファイル", []int{3, 4}},
		{"設定", []int{3, 4}},
		{"deja vu", []int{6}},
		{"cafe", []int{6}},
		{"café's éclair", []int{6}},
		{"vu_deja", nil}, // out of order
	} {
		got := rounds(t, s, c.query)
		if fmt.Sprint(sortedInts(got)) != fmt.Sprint(sortedInts(c.want)) {
			t.Errorf("%q: rounds %v, want %v", c.query, got, c.want)
		}
	}
}

func sortedInts(v []int) []int {
	out := append([]int(nil), v...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}
