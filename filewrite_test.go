package cairn_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/codex"
	"github.com/cairn-dev/cairn/gemini"
	"github.com/cairn-dev/cairn/opencode"
	"github.com/cairn-dev/cairn/pi"
)

// harnessRounds reads a real session of a harness with its adapter: the
// session and its rounds with their blocks.
func harnessRounds(t *testing.T, f cairn.Transcript, path string) (*cairn.Session, []*cairn.Round) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	raws := claudecode.SplitLines(data)
	s, err := f.Identify(path, raws)
	if err != nil {
		t.Fatal(err)
	}
	b := f.NewBuilder(s, 0)
	for i, raw := range raws {
		b.Add(&cairn.Line{SessionID: s.ID, No: i + 1, Raw: raw})
	}
	rounds, seq, _ := b.Finish()
	bySeq := map[int]*cairn.Round{}
	for _, r := range rounds {
		bySeq[r.Seq] = r
	}
	for _, bl := range cairn.CollectBlocks(seq) {
		bySeq[bl.RoundSeq].Blocks = append(bySeq[bl.RoundSeq].Blocks, bl)
	}
	return s, rounds
}

func glob1(t *testing.T, pattern string) string {
	t.Helper()
	m, _ := filepath.Glob(pattern)
	if len(m) == 0 {
		t.Fatalf("no file matches %s", pattern)
	}
	return m[0]
}

// TestFileWrites_EveryHarness: the files a real session of each harness
// wrote and the commands it ran, read from its blocks by the session's
// harness, and the drafted results that list them.
func TestFileWrites_EveryHarness(t *testing.T) {
	for _, c := range []struct {
		name     string
		format   cairn.Transcript
		path     string
		files    []string // base names, in order of first write
		commands []string
	}{
		{"claude-code", claudecode.Format{}, "testdata/claudecode/5f0c2a1e-8d4b-4c7a-9e31-0a6b2d9c1f01.jsonl",
			[]string{"session.go", "0002_users_created_at.sql", "session_test.go"},
			[]string{"ls -la && git log --oneline -5", "go build ./... && go vet ./auth", "go build ./... && go vet ./auth && echo build ok", "ls migrations && cat migrations/0001_init.sql", "go test -run '^$' -bench ValidateToken -benchtime 2000x ./auth"}},
		{"codex", codex.Format{}, "codex/testdata/compacted.jsonl", []string{"health.go"}, []string{"go test ./..."}},
		{"gemini", gemini.Format{}, glob1(t, "gemini/testdata/0.61.0/*.jsonl"), []string{"greeting.txt", "notes.md"}, []string{"ls -1 && echo sample-shell-ok"}},
		{"opencode", opencode.Format{}, "internal/conformance/testdata/opencode-1.18.33.jsonl", []string{"notes.txt"}, []string{"wc -l notes.txt", "grep -c . notes.txt"}},
		{"pi", pi.Format{}, "internal/conformance/testdata/pi-0.73.1.jsonl", []string{"list.txt"}, []string{"wc -l list.txt && echo LISTED-OK", "grep -c . list.txt"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, rounds := harnessRounds(t, c.format, c.path)
			var files, commands []string
			for _, r := range rounds {
				for _, b := range r.Blocks {
					if b.Kind != cairn.ToolUse || b.Sidechain {
						continue
					}
					for _, p := range cairn.FilesWritten(s.Agent, b.ToolName, b.Content) {
						if p = filepath.Base(p); !slices.Contains(files, p) {
							files = append(files, p)
						}
					}
					if cmd := cairn.ShellCommand(s.Agent, b.ToolName, b.Content); cmd != "" {
						commands = append(commands, cmd)
					}
				}
			}
			if !slices.Equal(files, c.files) || !slices.Equal(commands, c.commands) {
				t.Errorf("%s session: files %q, commands %q; want %q, %q", s.Agent, files, commands, c.files, c.commands)
			}
			res, err := cairn.ResultsFromRounds(rounds, cairn.ResultsOptions{Agents: map[string]string{s.ID: s.Agent}})
			if err != nil {
				t.Fatal(err)
			}
			var arts []string
			for _, a := range res.Artifacts {
				arts = append(arts, filepath.Base(a))
			}
			if !slices.Equal(arts, c.files) {
				t.Errorf("drafted results' artifacts %q, want %q", arts, c.files)
			}
			if c.name == "codex" && !strings.Contains(res.Results, "- `go test ./...` → failed: FAIL health_test.go:9") {
				t.Errorf("drafted results verify no go test:\n%s", res.Results)
			}
		})
	}
}

// TestFileWrites_Shapes: each harness's write tools by its own fields, a
// tool name two harnesses share read by the session's, and every header
// of a Codex patch, however the call carries it.
func TestFileWrites_Shapes(t *testing.T) {
	patch := "*** Begin Patch\n*** Add File: a/new.go\n+package a\n*** Update File: a/old.go\n*** Move to: a/moved.go\n@@\n-x\n+y\n*** Delete File: a/gone.go\n*** Update File: b.go\n@@\n-p\n+q\n*** End Patch\n"
	want := []cairn.FileWrite{{Path: "a/new.go"}, {Path: "a/old.go", Deleted: true}, {Path: "a/moved.go"}, {Path: "a/gone.go", Deleted: true}, {Path: "b.go"}}
	quoted := strconv.Quote(patch)
	for _, c := range []struct {
		agent, tool, input string
		want               []cairn.FileWrite
	}{
		{cairn.AgentCodex, "apply_patch", patch, want},
		{cairn.AgentCodex, "apply_patch", `{"input":` + quoted + `}`, want},
		{cairn.AgentCodex, "shell", `{"command":["apply_patch",` + quoted + `]}`, want},
		{cairn.AgentCodex, "exec_command", `{"cmd":` + strconv.Quote("apply_patch <<'EOF'\n"+patch+"EOF\n") + `}`, want},
		{cairn.AgentCodex, "exec_command", `{"cmd":"go test ./..."}`, nil},
		{cairn.AgentOpencode, "apply_patch", `{"patchText":` + quoted + `}`, want},
		{cairn.AgentOpencode, "write", `{"filePath":"/w/x.go","content":"x"}`, []cairn.FileWrite{{Path: "/w/x.go"}}},
		{cairn.AgentOpencode, "edit", `{"path":"x.go","oldText":"a","newText":"b"}`, nil}, // pi's fields
		{cairn.AgentPi, "edit", `{"path":"x.go","edits":[{"oldText":"a","newText":"b"}]}`, []cairn.FileWrite{{Path: "x.go"}}},
		{cairn.AgentPi, "write", `{"filePath":"x.go","content":"x"}`, nil}, // opencode's fields
		{cairn.AgentGemini, "replace", `{"file_path":"/w/g.txt","old_string":"a","new_string":"b"}`, []cairn.FileWrite{{Path: "/w/g.txt"}}},
		{cairn.AgentGemini, "write", `{"filePath":"x.go"}`, nil},
		{cairn.AgentClaudeCode, "write", `{"filePath":"x.go"}`, nil},
		{"", "NotebookEdit", `{"notebook_path":"n.ipynb"}`, []cairn.FileWrite{{Path: "n.ipynb"}}},
		{cairn.AgentPi, "Write", `{"file_path":"c.go","content":"x"}`, []cairn.FileWrite{{Path: "c.go"}}}, // given as Claude Code's
		{cairn.AgentClaudeCode, "apply_patch", patch, nil},
	} {
		if got := cairn.FileWrites(c.agent, c.tool, c.input); !slices.Equal(got, c.want) {
			t.Errorf("FileWrites(%q, %q, %.60q) = %+v, want %+v", c.agent, c.tool, c.input, got, c.want)
		}
		if len(c.want) > 0 && !cairn.MayWriteFiles(c.agent, c.tool) {
			t.Errorf("MayWriteFiles(%q, %q) = false for a call that writes", c.agent, c.tool)
		}
	}
	for _, c := range []struct{ agent, tool, input, want string }{
		{cairn.AgentCodex, "shell", `{"command":["bash","-lc","go vet ./..."]}`, "go vet ./..."},
		{cairn.AgentCodex, "local_shell", `{"type":"exec","command":["ls","-la"]}`, "ls -la"},
		{cairn.AgentGemini, "run_shell_command", `{"command":"make test","dir_path":"x"}`, "make test"},
		{cairn.AgentOpencode, "bash", `{"command":"go test ./...","description":"Runs go"}`, "go test ./..."},
		{cairn.AgentClaudeCode, "bash", `{"command":"go test ./..."}`, ""},
		{cairn.AgentGemini, "exec_command", `{"cmd":"ls"}`, ""},
	} {
		if got := cairn.ShellCommand(c.agent, c.tool, c.input); got != c.want {
			t.Errorf("ShellCommand(%q, %q, %s) = %q, want %q", c.agent, c.tool, c.input, got, c.want)
		}
	}
}
