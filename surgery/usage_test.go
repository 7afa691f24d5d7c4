package surgery_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/surgery"
)

// fullWindow is what the last reply of the session TestExport_UsageIsOwnSize
// cuts reports it read from the cache: a window all but full.
const fullWindow = 995_000

// An exported reply's usage describes the export, not its source: a cut of
// a session whose last reply reported a full window reports its own size,
// which the client reads on resume (and compacts when it looks full) and
// cairn's hooks read as how full the context is (issue 26 point 4). The
// last reply's input and output add up to the estimate every edge shows
// (m.Tokens); each reply's input is what precedes it; no cache figure of
// the source is left.
func TestExport_UsageIsOwnSize(t *testing.T) {
	ctx := context.Background()
	st := &store{db: sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))}
	if err := st.db.Open(); err != nil {
		t.Fatal(err)
	}
	defer st.db.Close()
	st.Store = surgery.Store{Sessions: sqlite.NewSessionStore(st.db), Rounds: sqlite.NewRoundStore(st.db), Lines: sqlite.NewLineStore(st.db)}
	mustImport(t, st, fullAtEnd(t, "../testdata/claudecode/"+tools+".jsonl"))

	text, _ := cairn.ParseFidelity("text")
	split, err := surgery.ParseSplitMap("1-2=early,3=bench")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		run  func() ([]*cairn.Materialization, error)
	}{
		{"revive", func() ([]*cairn.Materialization, error) {
			m, err := surgery.Revive(ctx, st.Store, tools, "", "", cairn.FullFidelity)
			return []*cairn.Materialization{m}, err
		}},
		{"revive-text", func() ([]*cairn.Materialization, error) {
			m, err := surgery.Revive(ctx, st.Store, tools, "", "", text)
			return []*cairn.Materialization{m}, err
		}},
		{"compress-before", func() ([]*cairn.Materialization, error) {
			m, err := surgery.CompressBefore(ctx, st.Store, tools, surgery.Point{Seq: 3}, cairn.FullFidelity)
			return []*cairn.Materialization{m}, err
		}},
		{"split", func() ([]*cairn.Materialization, error) {
			return surgery.Split(ctx, st.Store, tools, split, cairn.FullFidelity)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ms, err := c.run()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				name := c.name + " " + m.Label
				lines := exportLines(t, m)
				path := filepath.Join(t.TempDir(), newSessionID+".jsonl")
				if err := os.WriteFile(path, bytes.Join(lines, nil), 0o644); err != nil {
					t.Fatal(err)
				}
				var last *usageOf
				var prev int64
				for i, raw := range lines {
					u := replyUsage(t, raw)
					if u == nil {
						continue
					}
					if u.CacheRead != 0 || u.CacheCreation != 0 {
						t.Errorf("%s line %d: cache figures %d and %d left from the source", name, i+1, u.CacheRead, u.CacheCreation)
					}
					if u.Input < prev {
						t.Errorf("%s line %d: input %d after a reply of %d", name, i+1, u.Input, prev)
					}
					prev, last = u.Input, u
				}
				if last == nil {
					t.Fatalf("%s: no reply reports usage", name)
				}
				if got := last.Input + last.Output; got != m.Tokens {
					t.Errorf("%s: the last reply reports %d in + %d out = %d tokens, want the output's estimate %d", name, last.Input, last.Output, got, m.Tokens)
				}
				f, err := os.Open(path)
				if err != nil {
					t.Fatal(err)
				}
				occ, err := claudecode.LastOccupancy(f, cairn.WindowSignals{})
				f.Close()
				if err != nil || occ == nil {
					t.Fatalf("%s: LastOccupancy = %v, %v", name, occ, err)
				}
				if w := cairn.ClaudeCodeWindow(cairn.WindowSignals{Model: occ.Model}); occ.Tokens != last.Input || occ.Window != w {
					t.Errorf("%s: occupancy %d of %+v, want %d of %+v", name, occ.Tokens, occ.Window, last.Input, w)
				}
				t.Logf("%s: estimate %d tokens, last reply %d in + %d out, occupancy %d%% (source's last reply: %d)", name, m.Tokens, last.Input, last.Output, occ.Percent(), fullWindow)
			}
		})
	}
}

// fullAtEnd copies a sample transcript into a temporary folder with its
// last reply reporting [fullWindow] cache-read tokens, and returns the
// copy's path.
func fullAtEnd(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := claudecode.SplitLines(data)
	id := ""
	for _, raw := range lines {
		var l struct {
			Type    string `json:"type"`
			Message struct {
				ID string `json:"id"`
			} `json:"message"`
		}
		if json.Unmarshal(raw, &l) == nil && l.Type == "assistant" {
			id = l.Message.ID
		}
	}
	full := []byte(`"cache_read_input_tokens":` + strconv.Itoa(fullWindow))
	n := 0
	for i, raw := range lines {
		if id != "" && bytes.Contains(raw, []byte(`"id":"`+id+`"`)) {
			lines[i] = bytes.Replace(raw, []byte(`"cache_read_input_tokens":0`), full, 1)
			n += bytes.Count(lines[i], full)
		}
	}
	if n == 0 {
		t.Fatalf("%s: no usage to fill on the last reply", path)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, bytes.Join(lines, nil), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

type usageOf struct {
	Input         int64 `json:"input_tokens"`
	Output        int64 `json:"output_tokens"`
	CacheRead     int64 `json:"cache_read_input_tokens"`
	CacheCreation int64 `json:"cache_creation_input_tokens"`
}

// replyUsage returns the usage an assistant line reports, or nil.
func replyUsage(t *testing.T, raw []byte) *usageOf {
	t.Helper()
	var l struct {
		Type    string `json:"type"`
		Message struct {
			Usage *usageOf `json:"usage"`
		} `json:"message"`
	}
	if err := json.Unmarshal(raw, &l); err != nil {
		t.Fatal(err)
	}
	if l.Type != "assistant" {
		return nil
	}
	return l.Message.Usage
}
