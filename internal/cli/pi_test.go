package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/pi"
)

// TestPiCLI drives the commands over the session the real pi 0.73.1 wrote
// (pi/testdata: two prompts, then a /tree branch from the first answer,
// and a --fork of it): import with no PATH finds ~/.pi/agent/sessions;
// sessions, search and export (byte for byte) read them; revive writes a
// new pi session in the working directory's folder (its own harness by
// default) on the active path only, without the branch left; --to claude
// crosses its calls.
func TestPiCLI(t *testing.T) {
	root := t.TempDir()
	cwd := filepath.Join(root, "work")
	dir := pi.ProjectDir(filepath.Join(root, ".pi", "agent", "sessions"), cwd)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	samples, _ := filepath.Glob("../../pi/testdata/0.73.1/*.jsonl")
	if len(samples) != 2 {
		t.Fatalf("samples: %v", samples)
	}
	var original string
	for i, s := range samples {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.Base(s))
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			original = path
		}
	}
	env := map[string]string{"HOME": root, "CAIRN_STORE": filepath.Join(root, ".cairn", "cairn.db")}
	run := func(args ...string) string {
		t.Helper()
		out, errOut, err := runEnv(t, env, args...)
		if err != nil {
			t.Fatalf("cairn %v: %v\n%s%s", args, err, out, errOut)
		}
		return out
	}
	if out := run("import"); !strings.HasPrefix(out, "2 files (2 new, 0 appended, 0 unchanged, 0 rewritten, 0 failed): 36 lines read, 36 stored") {
		t.Fatalf("import: %s", out)
	}
	if out := run("import"); !strings.HasPrefix(out, "2 files (0 new, 0 appended, 2 unchanged") {
		t.Fatalf("second import: %s", out)
	}
	id := "01a22180-defd-73bc-8443-003c4a745f68"
	if out := run("sessions", "--agent", "pi"); !strings.Contains(out, id+"  pi  ") || strings.Count(out, "  pi  ") != 2 {
		t.Fatalf("sessions: %s", out)
	}
	if out := run("search", "--agent", "pi", "alpha"); !strings.Contains(out, id+"  3.1") {
		t.Fatalf("search: %s", out)
	}
	want, _ := os.ReadFile(original)
	if out := run("export", id); out != string(want) {
		t.Fatal("export is not the file pi wrote")
	}
	if err := os.MkdirAll(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	out := run("revive", id, "--cwd", cwd)
	m := regexp.MustCompile(`wrote (\S+)\n`).FindStringSubmatch(out)
	if m == nil || filepath.Dir(m[1]) != dir || !strings.Contains(out, "resume: cd "+cwd+" && pi --session "+m[1]) {
		t.Fatalf("revive: %s", out)
	}
	revived, err := os.ReadFile(m[1])
	if err != nil {
		t.Fatal(err)
	}
	r := string(revived)
	if !strings.Contains(r, `"parentSession":"`+original+`"`) || !strings.Contains(r, "try another way") || !strings.Contains(r, "a.txt holds alpha.") {
		t.Errorf("the revive lacks the active path or its parent:\n%s", r)
	}
	if strings.Contains(r, "notes.txt") || strings.Contains(r, "write the notes") || strings.Contains(r, "round 002") {
		t.Errorf("the revive holds the branch left (its prompt, its round or its write of notes.txt):\n%s", r)
	}
	out = run("revive", id, "--to", "claude", "--cwd", cwd)
	if !strings.Contains(out, "crossed from pi: 2 tool calls mapped") {
		t.Errorf("revive --to claude: %s", out)
	}
}
