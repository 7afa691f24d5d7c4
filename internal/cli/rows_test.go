package cli

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/export"

	"github.com/rogpeppe/go-internal/txtar"
)

// TestMigrateRows reads a store written by the cairn of migration 0013
// (testdata/store-0013.db: ../../testdata/claudecode and
// ../../testdata/codex/three-rounds.jsonl imported by it, then vacuumed)
// with this cairn, which converts it on opening (migration 0016: blocks,
// messages and staged blocks keyed by session numbers, block times in
// milliseconds, kinds and roles as codes): each command of testdata/store-0013.txtar prints byte
// for byte what that cairn printed from the same store. A new import of
// the same transcripts prints the same too, but for what differs between
// two imports: the time of import in JSON, and the order of search hits
// of equal rank, by block id. Searches find the same rounds, and as many
// hits, but rank them as today's cairn does (migration 0014 ranks by
// length: an index without positions cannot count a word's occurrences),
// so that a round's best block, and the hits' order, may differ.
func TestMigrateRows(t *testing.T) {
	archive, err := txtar.ParseFile("testdata/store-0013.txtar")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	copyFixture(t, "store-0013.db", old)
	fresh := filepath.Join(dir, "new.db")
	for _, src := range []string{samples, "../../testdata/codex/three-rounds.jsonl"} {
		if _, stderr, err := runMain(t, fresh, "import", src); err != nil {
			t.Fatalf("import %s: %v\n%s", src, err, stderr)
		}
	}
	if len(archive.Files) < 20 {
		t.Fatalf("%d reads in testdata/store-0013.txtar", len(archive.Files))
	}
	for _, f := range archive.Files {
		args := strings.Fields(f.Name)
		stores := []string{old, fresh}
		if args[0] == "search" || slices.Contains(args, "--json") {
			stores = stores[:1]
		}
		for _, store := range stores {
			got, stderr, err := runMain(t, store, args...)
			want := string(f.Data)
			if args[0] == "search" {
				got, want = searchedRounds(got), searchedRounds(want)
			}
			if !slices.Contains(args, "--json") && !slices.Contains(args, "json") {
				want = toolInputsAsText(want)
			}
			if err != nil {
				t.Errorf("%s of %s: %v\n%s", f.Name, filepath.Base(store), err, stderr)
			} else if got != want {
				t.Errorf("%s of %s prints differently from the cairn of migration 0013:\n%s\nwant:\n%s", f.Name, filepath.Base(store), got, f.Data)
			}
		}
	}

	raw, err := sql.Open("sqlite", "file:"+old)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	var blocks, numbered, stamped, coded, oldColumns, messages, rowid int
	if err := raw.QueryRow(`SELECT (SELECT COUNT(*) FROM blocks),
		(SELECT COUNT(*) FROM blocks b JOIN session_nums n ON n.num = b.session_num JOIN sessions s ON s.id = n.session_id),
		(SELECT COUNT(*) FROM blocks WHERE timestamp > 1700000000000),
		(SELECT COUNT(*) FROM blocks WHERE typeof(kind) = 'integer' AND typeof(role) = 'integer'),
		(SELECT COUNT(*) FROM pragma_table_info('blocks') WHERE name = 'session_id') + (SELECT COUNT(*) FROM pragma_table_info('messages') WHERE name = 'session_id'),
		(SELECT COUNT(*) FROM messages),
		(SELECT COUNT(*) FROM sqlite_master WHERE name = 'sqlite_autoindex_messages_1')`).
		Scan(&blocks, &numbered, &stamped, &coded, &oldColumns, &messages, &rowid); err != nil {
		t.Fatal(err)
	}
	if blocks < 90 || numbered != blocks || stamped != blocks || coded != blocks || oldColumns != 0 || messages < 30 || rowid != 0 {
		t.Errorf("after migration 0016: %d blocks, %d of a numbered session, %d with a time in milliseconds, %d with kind and role codes, %d session_id columns left in blocks and messages, %d messages, %d autoindexes of messages",
			blocks, numbered, stamped, coded, oldColumns, messages, rowid)
	}
}

// copyFixture copies testdata/name, a store an older cairn wrote, to
// path, where opening it migrates the copy, not the fixture.
func copyFixture(t *testing.T, name, path string) {
	t.Helper()
	fixture, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, fixture, 0o644); err != nil {
		t.Fatal(err)
	}
}

// searchedRounds is the rounds of the hits search printed in out, sorted,
// and how many hits there were; only how many when there were 20, the
// limit: which rounds make the first 20 depends on the ranking.
// oldToolInput is a tool call's input as the cairn of 0013 printed it:
// its JSON in a json block.
var oldToolInput = regexp.MustCompile("(?m)^`{3,}json\n(\\{.*\\})\n`{3,}$")

// toolInputsAsText is what the cairn of 0013 printed with each tool call's
// input printed as today's cairn prints it, as text (export.ToolInput):
// the one way the two differ on purpose.
func toolInputsAsText(out string) string {
	return oldToolInput.ReplaceAllStringFunc(out, func(block string) string {
		return export.ToolInput(oldToolInput.FindStringSubmatch(block)[1])
	})
}

func searchedRounds(out string) string {
	var rounds []string
	var parsed struct {
		Hits []struct {
			SessionID string `json:"session_id"`
			Round     int    `json:"round"`
		} `json:"hits"`
	}
	if json.Unmarshal([]byte(out), &parsed) == nil {
		for _, h := range parsed.Hits {
			rounds = append(rounds, fmt.Sprintf("%s %d", h.SessionID, h.Round))
		}
	} else {
		for _, l := range strings.Split(out, "\n") {
			if f := strings.Fields(l); len(f) > 1 && len(f[0]) >= 36 && l[0] != ' ' {
				round, _, _ := strings.Cut(f[1], ".")
				rounds = append(rounds, f[0]+" "+round)
			}
		}
	}
	if len(rounds) >= 20 {
		return fmt.Sprintf("%d hits", len(rounds))
	}
	slices.Sort(rounds)
	return fmt.Sprintf("%d hits:\n%s", len(rounds), strings.Join(rounds, "\n"))
}

// TestOpen_SaysRebuild: a command that opens a store whose search index
// must be rebuilt in this cairn's layout (the store of migration 0013)
// says so on stderr, with about how many blocks, once: the next command
// finds it rebuilt and says nothing.
func TestOpen_SaysRebuild(t *testing.T) {
	old := filepath.Join(t.TempDir(), "old.db")
	copyFixture(t, "store-0013.db", old)
	for i, want := range []string{"cairn: rebuilding the search index of " + old + " in this version's layout (about ", ""} {
		_, stderr, err := runMain(t, old, "sessions")
		if err != nil {
			t.Fatalf("sessions %d: %v\n%s", i, err, stderr)
		}
		if want == "" && stderr != "" || !strings.HasPrefix(stderr, want) || want != "" && !strings.Contains(stderr, " blocks, ") {
			t.Errorf("sessions %d said %q, want %q…", i, stderr, want)
		}
	}
}
