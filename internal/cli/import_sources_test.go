package cli

import (
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/opencode"
)

// sourcesHome is a HOME with a Claude Code session, a Gemini CLI session
// and an opencode data folder holding what damage makes of it, and the
// environment that points cairn at them.
type sourcesHome struct {
	root, data string
	env        map[string]string
}

func newSourcesHome(t *testing.T) *sourcesHome {
	t.Helper()
	root := t.TempDir()
	h := &sourcesHome{root: root, data: filepath.Join(root, "data", "opencode"),
		env: map[string]string{"HOME": root, "XDG_DATA_HOME": filepath.Join(root, "data"),
			"CAIRN_STORE": filepath.Join(root, ".cairn", "cairn.db"), "CODEX_HOME": filepath.Join(root, ".codex")}}
	copyInto(t, "../../testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl",
		filepath.Join(root, ".claude", "projects", "-p", "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl"))
	copyInto(t, "../../gemini/testdata/0.61.0/session-2026-11-25T19-51-2de7feb0.jsonl",
		filepath.Join(root, ".gemini", "tmp", "p", "chats", "session-2026-11-25T19-51-2de7feb0.jsonl"))
	if err := os.MkdirAll(h.data, 0o755); err != nil {
		t.Fatal(err)
	}
	return h
}

// copyInto copies the file from to to, making its folder.
func copyInto(t *testing.T, from, to string) {
	t.Helper()
	b, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(to), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(to, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// sessions lists the agents of the stored sessions, one line each.
func (h *sourcesHome) agents(t *testing.T) string {
	t.Helper()
	out, errOut, err := runEnv(t, h.env, "sessions", "--json")
	if err != nil {
		t.Fatalf("sessions: %v %s", err, errOut)
	}
	var agents []string
	for _, a := range []string{"claude-code", "gemini", "opencode"} {
		if n := strings.Count(out, `"agent":"`+a+`"`); n > 0 {
			agents = append(agents, a)
		}
	}
	return strings.Join(agents, " ")
}

// TestImport_DamagedOpencode pins that a damaged opencode source keeps
// nothing else out of an import, with no PATH and with paths given: each
// damage is named in cairn's words with its file, everything else is
// imported, and the command fails.
func TestImport_DamagedOpencode(t *testing.T) {
	good, err := os.ReadFile("../../opencode/testdata/1.18.33/opencode.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, h *sourcesHome)
		want   string
	}{
		{"garbage", func(t *testing.T, h *sourcesHome) {
			writeFile(t, filepath.Join(h.data, opencode.DBName), strings.Repeat("not a database\x00\x01", 300))
		}, "opencode.db is not an SQLite database"},
		{"another schema", func(t *testing.T, h *sourcesHome) {
			db, err := sql.Open("sqlite", filepath.Join(h.data, opencode.DBName))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.Exec(`CREATE TABLE notes (id TEXT, body TEXT); INSERT INTO notes VALUES ('a', 'b')`); err != nil {
				t.Fatal(err)
			}
		}, "opencode.db is an SQLite database but not opencode's store"},
		{"cut in half", func(t *testing.T, h *sourcesHome) {
			writeFile(t, filepath.Join(h.data, opencode.DBName), string(good[:len(good)/2]))
		}, "opencode.db is damaged or cut short"},
		{"truncated 1.1 part", func(t *testing.T, h *sourcesHome) {
			copyTree(t, "../../opencode/testdata/1.1.65/storage", filepath.Join(h.data, opencode.StorageDir))
			parts, _ := filepath.Glob(filepath.Join(h.data, opencode.StorageDir, "part", "*", "*.json"))
			b, err := os.ReadFile(parts[0])
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, parts[0], string(b[:len(b)/2]))
		}, "is cut short or not JSON (opencode leaves a file so while it rewrites it): session ses_debb1ae6dffetvAWdT1OwjptVF was not imported; a later import tries again"},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, args := range [][]string{{"import"}, {"import", "PATHS"}} {
				h := newSourcesHome(t)
				c.damage(t, h)
				if args[1:] != nil {
					args = []string{"import", h.data, filepath.Join(h.root, ".claude", "projects"), filepath.Join(h.root, ".gemini", "tmp")}
				}
				out, errOut, err := runEnv(t, h.env, args...)
				if err == nil || !strings.Contains(err.Error(), "could not be read (named above); everything else was imported") {
					t.Errorf("%v: error %v\n%s%s", args[:1+min(1, len(args)-1)], err, out, errOut)
				}
				if !strings.Contains(errOut, c.want) || !strings.Contains(errOut, h.data) {
					t.Errorf("%v: stderr does not name the damage (%q):\n%s", args[:1], c.want, errOut)
				}
				if got := h.agents(t); got != "claude-code gemini" {
					t.Errorf("%v: sessions stored: %q, want the Claude Code and Gemini ones\n%s%s", args[:1], got, out, errOut)
				}
			}
		})
	}
}

// TestImport_OpencodeDBFile pins that a store file given as the path is
// read as opencode's, not as a transcript of binary lines.
func TestImport_OpencodeDBFile(t *testing.T) {
	h := newSourcesHome(t)
	db := filepath.Join(h.root, "copies", opencode.DBName)
	copyInto(t, "../../opencode/testdata/1.18.33/opencode.db", db)
	out, errOut, err := runEnv(t, h.env, "import", db)
	if err != nil {
		t.Fatalf("import %s: %v\n%s%s", db, err, out, errOut)
	}
	if got := h.agents(t); got != "opencode" {
		t.Errorf("sessions stored: %q, want one opencode session\n%s%s", got, out, errOut)
	}
	// Another name, the same content.
	h = newSourcesHome(t)
	other := filepath.Join(h.root, "backup.sqlite")
	copyInto(t, "../../opencode/testdata/1.18.33/opencode.db", other)
	if out, errOut, err := runEnv(t, h.env, "import", other); err != nil || h.agents(t) != "opencode" {
		t.Errorf("import %s: %v, sessions %q\n%s%s", other, err, h.agents(t), out, errOut)
	}
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// copyTree copies the files under from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		copyInto(t, p, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestImport_GeminiShrank pins that a Gemini CLI session file found
// shorter than what was stored, and its beginning, keeps every stored
// round in the store and search, and that the import says so.
func TestImport_GeminiShrank(t *testing.T) {
	h := newSourcesHome(t)
	path := filepath.Join(h.root, ".gemini", "tmp", "p", "chats", "session-2026-11-25T19-51-2de7feb0.jsonl")
	if out, errOut, err := runEnv(t, h.env, "import", path); err != nil {
		t.Fatalf("import: %v\n%s%s", err, out, errOut)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	writeFile(t, path, strings.Join(lines[:16], "")) // the first round's lines
	out, errOut, err := runEnv(t, h.env, "import", path)
	if err != nil {
		t.Fatalf("import of the shorter file: %v\n%s%s", err, out, errOut)
	}
	if !strings.Contains(errOut, path+": ") || !strings.Contains(errOut, "what was stored (2 rounds) is kept") ||
		!strings.Contains(out, "1 file shorter than what was stored, which is kept") {
		t.Errorf("the import does not say the file shrank:\n%s%s", out, errOut)
	}
	if out, _, _ := runEnv(t, h.env, "sessions", "--agent", "gemini", "--json"); !strings.Contains(out, `"rounds":2`) {
		t.Errorf("the session lost rounds:\n%s", out)
	}
	if out, _, _ := runEnv(t, h.env, "search", "--agent", "gemini", "change the greeting"); !strings.Contains(out, "2de7feb0-2034-4b45-b09c-27de6f3aac9e  2") {
		t.Errorf("the second round is gone from search:\n%s", out)
	}
	// Shorter and other bytes: written again, read as a new generation,
	// and said so.
	writeFile(t, path, strings.Replace(strings.Join(lines[:16], ""), "Please inspect", "PLEASE INSPECT", 1))
	out, errOut, err = runEnv(t, h.env, "import", path)
	if err != nil || !strings.Contains(out, "1 rewritten") || !strings.Contains(errOut, "not their beginning: the client wrote the file again; read as a new generation") {
		t.Errorf("a shorter file written again: %v\n%s%s", err, out, errOut)
	}
}

// TestImport_OpencodeFileRewritten pins that a session held back for a 1.1
// file caught half written is imported once opencode has written it whole.
func TestImport_OpencodeFileRewritten(t *testing.T) {
	h := newSourcesHome(t)
	copyTree(t, "../../opencode/testdata/1.1.65/storage", filepath.Join(h.data, opencode.StorageDir))
	parts, _ := filepath.Glob(filepath.Join(h.data, opencode.StorageDir, "part", "*", "*.json"))
	whole, err := os.ReadFile(parts[0])
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, parts[0], string(whole[:len(whole)/2]))
	if _, _, err := runEnv(t, h.env, "import"); err == nil || h.agents(t) != "claude-code gemini" {
		t.Fatalf("import with a part cut short: %v, sessions %q", err, h.agents(t))
	}
	writeFile(t, parts[0], string(whole))
	if out, errOut, err := runEnv(t, h.env, "import"); err != nil || h.agents(t) != "claude-code gemini opencode" {
		t.Fatalf("import once the part is whole: %v, sessions %q\n%s%s", err, h.agents(t), out, errOut)
	}
}
