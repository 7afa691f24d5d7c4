package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/claudecode"
)

// cli runs cairn commands against one store, with HOME in a temporary folder.
type cli struct {
	tb    testing.TB
	env   map[string]string
	wd    string
	store string
}

func newCLI(tb testing.TB) *cli {
	dir := tb.TempDir()
	c := &cli{tb: tb, wd: dir, store: filepath.Join(dir, "cairn.db"), env: map[string]string{"HOME": filepath.Join(dir, "home")}}
	c.run("import", "--store", c.store, "../../testdata/claudecode")
	return c
}

func (c *cli) run(args ...string) string {
	c.tb.Helper()
	out, err := c.try(args...)
	if err != nil {
		c.tb.Fatalf("cairn %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return out
}

func (c *cli) try(args ...string) (string, error) {
	var stdout, stderr bytes.Buffer
	m := NewMain(strings.NewReader(""), &stdout, &stderr)
	m.Getenv = func(k string) string {
		if k == "CAIRN_STORE" {
			return c.store
		}
		return c.env[k]
	}
	m.Getwd = func() (string, error) { return c.wd, nil }
	err := m.Run(context.Background(), args)
	return stdout.String() + stderr.String(), err
}

const tools = "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01"

var resumeRE = regexp.MustCompile(`resume: cd (\S+) && claude --resume ([0-9a-f-]{36})`)

func TestSurgeryCommands(t *testing.T) {
	c := newCLI(t)
	proj := t.TempDir()

	t.Run("TagAndQuery", func(t *testing.T) {
		c.run("tag", "auth", tools, "1")
		c.run("tag", "db", tools, "2-3")
		c.run("untag", tools, "3")
		out := c.run("rounds", "--engagement", "db")
		if !strings.Contains(out, "engagement db · 1 rounds") || !strings.Contains(out, tools+" | 002 |") {
			t.Fatalf("rounds --engagement:\n%s", out)
		}
		out = c.run("tag", "suggest", "migration")
		if !strings.Contains(out, "candidates for migration") || !strings.Contains(out, "002") {
			t.Fatalf("tag suggest:\n%s", out)
		}
		if out := c.run("matrix"); !strings.Contains(out, "auth") || !strings.Contains(out, ":1") {
			t.Fatalf("matrix:\n%s", out)
		}
	})
	t.Run("CompressBeforeExports", func(t *testing.T) {
		out := c.run("compress-before", tools, "3", "--cwd", proj)
		m := resumeRE.FindStringSubmatch(out)
		if m == nil || m[1] != proj {
			t.Fatalf("no resume command for %s in:\n%s", proj, out)
		}
		path := filepath.Join(c.env["HOME"], ".claude", "projects", claudecode.ProjectDirName(proj), m[2]+".jsonl")
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := claudecode.CheckResumable(m[2], claudecode.SplitLines(data)); err != nil {
			t.Fatal(err)
		}
		// Registered with its lineage, and searchable.
		if out := c.run("sessions", "--json", "--surgical"); !strings.Contains(out, `"id":"`+m[2]+`","agent":"claude-code","lineage":"surgery","parent":"`+tools+`"`) ||
			!strings.Contains(out, `"operation":"compress-before"`) {
			t.Fatalf("sessions:\n%s", out)
		}
		if out := c.run("search", "--json", "--surgical", "ValidateToken"); !strings.Contains(out, m[2]) {
			t.Fatalf("the export is not searchable:\n%s", out)
		}
	})
	t.Run("Markdown", func(t *testing.T) {
		out := c.run("merge", "--format", "markdown", tools, "5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04")
		if !strings.Contains(out, "- source B: `5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f04`") || !strings.Contains(out, "of source B*") {
			t.Fatalf("merge markdown:\n%.2000s", out)
		}
		// Each message says whose voice it is: the two conversations interleave.
		for _, voice := range []string{"**User A:**", "**Assistant A:**", "**User B:**", "**Assistant B:**", "## Round 001 of source B ·"} {
			if !strings.Contains(out, voice) {
				t.Errorf("merge markdown has no %q", voice)
			}
		}
		out = c.run("inject", tools, "2", "--fidelity", "thinking=reference")
		if !strings.Contains(out, "[thinking · 73 chars — cairn inject "+tools+" 2]") {
			t.Fatalf("inject:\n%s", out)
		}
	})
	t.Run("SplitAndRevive", func(t *testing.T) {
		out := c.run("split", "--cwd", proj, tools, "1=shared,2=db,3=bench")
		if n := len(resumeRE.FindAllString(out, -1)); n != 2 {
			t.Fatalf("split printed %d resume commands:\n%s", n, out)
		}
		out = c.run("revive", "--cwd", proj, "--engagement", "auth", tools)
		if !strings.Contains(out, "revive: wrote") || !strings.Contains(out, "tokens the client sends (budget ") || resumeRE.FindString(out) == "" {
			t.Fatalf("revive:\n%s", out)
		}
		if out := c.run("sessions", "--json", "--surgical"); !strings.Contains(out, `"lineage":"revive"`) {
			t.Fatalf("no session has lineage revive:\n%.3000s", out)
		}
		if out := c.run("advise", "--window", "1000", tools); !strings.Contains(out, "cairn ") {
			t.Fatalf("advise:\n%s", out)
		}
	})
	t.Run("OutDir", func(t *testing.T) {
		home := filepath.Join(c.env["HOME"], ".claude", "projects", claudecode.ProjectDirName(proj))
		// Where the client looks: the usual command.
		out := c.run("compress-before", tools, "3", "--cwd", proj, "--out", home)
		if m := resumeRE.FindStringSubmatch(out); m == nil || strings.Contains(out, "note:") {
			t.Fatalf("--out the project folder:\n%s", out)
		}
		// Another config folder's projects: CLAUDE_CONFIG_DIR says where.
		config := filepath.Join(t.TempDir(), "cfg")
		out = c.run("compress-before", tools, "3", "--cwd", proj, "--out", filepath.Join(config, "projects", claudecode.ProjectDirName(proj)))
		if !strings.Contains(out, "resume: cd "+proj+" && CLAUDE_CONFIG_DIR="+config+" claude --resume ") {
			t.Fatalf("--out another config folder:\n%s", out)
		}
		// Anywhere else: the command moves the file where the client looks,
		// and running it leaves a session there.
		elsewhere := t.TempDir()
		out = c.run("compress-before", tools, "3", "--cwd", proj, "--out", elsewhere)
		m := regexp.MustCompile(`resume: mkdir -p (\S+) && mv (\S+) (\S+)/ && cd (\S+) && claude --resume ([0-9a-f-]{36})`).FindStringSubmatch(out)
		if m == nil || m[1] != home || m[2] != filepath.Join(elsewhere, m[5]+".jsonl") || m[3] != home || m[4] != proj || !strings.Contains(out, "note: the client finds a session only in "+home) {
			t.Fatalf("--out elsewhere:\n%s", out)
		}
		if err := os.Rename(m[2], filepath.Join(home, m[5]+".jsonl")); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("MissingFolderWarns", func(t *testing.T) {
		gone := filepath.Join(t.TempDir(), "gone")
		out := c.run("compress-before", tools, "3", "--cwd", gone)
		if !strings.Contains(out, "warning: --cwd "+gone+" does not exist") {
			t.Fatalf("no warning for a --cwd that does not exist:\n%s", out)
		}
		// The samples were made in /tmp/cairn-sample/proj, absent here.
		if _, err := os.Stat("/tmp/cairn-sample/proj"); err == nil {
			t.Skip("/tmp/cairn-sample/proj exists on this machine")
		}
		out = c.run("compress-before", tools, "3")
		if !strings.Contains(out, "warning: the source session's folder /tmp/cairn-sample/proj does not exist") {
			t.Fatalf("no warning for a source folder that does not exist:\n%s", out)
		}
		if out := c.run("compress-before", tools, "3", "--cwd", proj); strings.Contains(out, "warning") {
			t.Fatalf("a warning for a folder that exists:\n%s", out)
		}
	})
	t.Run("ContradictoryFidelity", func(t *testing.T) {
		out, err := c.try("compress-before", tools, "3", "--cwd", proj, "--fidelity", "tool_use=omit,tool_result=full")
		if err == nil || !strings.Contains(err.Error(), "keeps results without their calls") {
			t.Fatalf("err = %v:\n%s", err, out)
		}
	})
	t.Run("Errors", func(t *testing.T) {
		for _, args := range [][]string{
			{"compress-engagement", tools, "nope"},
			{"split", tools, "1-2=shared"},
			{"compress-before", tools, "soon"},
			{"inject", tools, "99"},
			{"compress-before", "--format", "pdf", tools, "2"},
		} {
			if out, err := c.try(args...); err == nil {
				t.Errorf("cairn %v succeeded:\n%s", args, out)
			}
		}
	})
}
