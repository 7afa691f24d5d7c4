package pitest_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/internal/fakeapi"
	"github.com/cairn-dev/cairn/internal/pitest"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/sqlite"
)

// newImporter returns a scratch store and an importer of pi's sessions
// into it.
func newImporter(t *testing.T) (*sqlite.DB, *inscribe.Importer) {
	t.Helper()
	db := sqlite.NewDB(filepath.Join(t.TempDir(), "cairn.db"))
	if err := db.Open(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, &inscribe.Importer{Store: struct {
		*sqlite.InscriptionStore
		*sqlite.LineStore
	}{sqlite.NewInscriptionStore(db), sqlite.NewLineStore(db)}, Format: pi.Format{}}
}

// TestImportAcrossMigration imports a session pi wrote in format 1, has
// the newest pi go on in it (it migrates the file to format 3, rewriting
// it with ids, then appends), and imports it again: a new generation of
// the file as pi left it, each prompt a round, the new one answered with
// its call; then pi goes on again and the import appends.
func TestImportAcrossMigration(t *testing.T) {
	c := pitest.NewestClient(t)
	api := fakeapi.New(fakeapi.Turn{Match: "once more", Steps: [][]fakeapi.Block{
		{{Type: "tool_use", Name: "bash", Input: map[string]any{"command": "echo MIGRATED-OK"}}},
		{{Type: "text", Text: "Done once more."}},
	}})
	defer api.Close()
	h := pitest.NewHome(t, api.URL)
	m, _ := filepath.Glob(filepath.Join("..", "..", "pi", "testdata", pitest.Oldest, "*.jsonl"))
	if len(m) != 1 {
		t.Fatalf("sample: %v", m)
	}
	data, err := os.ReadFile(m[0])
	if err != nil {
		t.Fatal(err)
	}
	// pi resumes a session only in the folder its header names.
	data = []byte(strings.ReplaceAll(string(data), "/home/user/work", h.Cwd))
	path := filepath.Join(h.SessionsDir(), filepath.Base(m[0]))
	if err := os.MkdirAll(h.SessionsDir(), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	db, im := newImporter(t)
	ctx := context.Background()
	imp := func(want string) *inscribe.FileReport {
		t.Helper()
		rep, err := im.Import(ctx, []string{filepath.Join(h.Agent(), "sessions")})
		if err != nil || len(rep.Files) != 1 || rep.Files[0].Status != want {
			t.Fatalf("import: %v %+v, want %s", err, rep, want)
		}
		return rep.Files[0]
	}
	fr := imp(inscribe.StatusNew)
	h.Run(t, c.Bin, "once more", "--session", path)
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(after), `"version":3`) || !strings.Contains(string(after), "MIGRATED-OK") {
		t.Fatalf("pi did not migrate and go on:\n%s", after)
	}
	imp(inscribe.StatusRewritten)
	lines, err := sqlite.NewLineStore(db).FindAllLines(ctx, fr.SessionID)
	if err != nil {
		t.Fatal(err)
	}
	var got []byte
	gens := map[int]bool{}
	for _, l := range lines {
		gens[l.Generation] = true
		if l.Generation == lines[len(lines)-1].Generation {
			got = append(got, l.Raw...)
		}
	}
	if len(gens) != 2 {
		t.Errorf("generations %v, want the file as pi 0.27.9 wrote it and as 0.73.1 rewrote it", gens)
	}
	if string(got) != string(after) {
		t.Error("the stored lines are not the file pi rewrote")
	}
	rounds, err := sqlite.NewRoundStore(db).FindRounds(ctx, cairn.RoundFilter{SessionID: fr.SessionID})
	if err != nil || len(rounds) != 4 || rounds[3].UserPreview != "once more" || rounds[3].AgentPreview != "Done once more." || strings.Join(rounds[3].Tools, ",") != "bash" {
		t.Fatalf("rounds after the migration: %v", err)
	}
	h.Run(t, c.Bin, "once more, again", "--session", path)
	imp(inscribe.StatusAppended)
}
