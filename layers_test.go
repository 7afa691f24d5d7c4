package cairn_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// module is cairn's module path. The tables below name packages by their
// path inside it ("cairn/loop" for module+"/loop"), as [short] gives them.
const module = "github.com/cairn-dev/cairn"

// short names a package of the module as "cairn" or "cairn/DIR", and
// leaves any other path as it is.
func short(path string) string {
	if path == module {
		return "cairn"
	}
	if rest, ok := strings.CutPrefix(path, module+"/"); ok {
		return "cairn/" + rest
	}
	return path
}

// layers says which cairn packages each package may import directly;
// dependencies point inward (AGENTS.md). A package not listed here is an
// edge and may import anything. Third-party and standard packages are
// allowed everywhere but the root, which imports the standard library only.
var layers = map[string][]string{
	"cairn":            {},
	"cairn/claudecode": {"cairn", "cairn/internal/readrule", "cairn/internal/uuid"},
	"cairn/codex":      {"cairn", "cairn/internal/readrule", "cairn/internal/uuid"},
	"cairn/opencode":   {"cairn", "cairn/internal/readrule"},
	"cairn/gemini":     {"cairn", "cairn/internal/jsonw", "cairn/internal/readrule", "cairn/internal/uuid"},
	"cairn/pi":         {"cairn", "cairn/internal/jsonw", "cairn/internal/uuid"},
	"cairn/sqlite":     {"cairn", "cairn/internal/porter"},
	"cairn/postgres":   {"cairn"},
	"cairn/inscribe":   {"cairn", "cairn/internal/readrule"},
	"cairn/export":     {"cairn"},
	"cairn/storetest":  {"cairn", "cairn/inscribe"},
	"cairn/surgery":    {"cairn", "cairn/export"},
	"cairn/assemble":   {"cairn"},
	"cairn/retention":  {"cairn", "cairn/surgery"},
	"cairn/workspace":  {"cairn"},
	"cairn/mock":       {"cairn"},
	"cairn/redact":     {},
	// The live loop: harness-neutral events in, what to tell the agent
	// and the person out; it decodes hook input with the adapters' codecs.
	"cairn/loop": {"cairn", "cairn/assemble", "cairn/claudecode", "cairn/export", "cairn/gemini", "cairn/inscribe", "cairn/opencode", "cairn/pi", "cairn/surgery", "cairn/workspace"},
	// Leaves: a stemmer as FTS5's, for sqlite and its benchmark.
	"cairn/internal/porter": {},
	// The one rule of what may be read of a client's files, for the
	// adapters and inscribe.
	"cairn/internal/readrule": {},
	// Leaves: JSON written as clients in JavaScript write it, for the
	// adapters that write their sessions.
	"cairn/internal/jsonw": {},
	// Leaves: the uuids clients name sessions with, made and checked.
	"cairn/internal/uuid": {},
	// Edges that pick no adapter: cmd/cairn hands them the stores (and
	// the viewer its exporter).
	"cairn/mcp":     {"cairn", "cairn/assemble", "cairn/workspace", "cairn/surgery", "cairn/export", "cairn/retention"},
	"cairn/http":    {"cairn", "cairn/export", "cairn/surgery", "cairn/retention", "cairn/http/ui"},
	"cairn/http/ui": {},
}

func TestLayers(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		for i := range fields {
			fields[i] = short(fields[i])
		}
		pkg, imports := fields[0], fields[1:]
		allowed, ok := layers[pkg]
		if !ok {
			continue
		}
		seen[pkg] = true
		for _, imp := range imports {
			isCairn := imp == "cairn" || strings.HasPrefix(imp, "cairn/")
			switch {
			case pkg == "cairn" && strings.Contains(strings.Split(imp, "/")[0], "."):
				t.Errorf("the root package imports %s: it may import the standard library only", imp)
			case isCairn && !contains(allowed, imp):
				t.Errorf("%s imports %s: allowed are %v", pkg, imp, allowed)
			}
		}
	}
	for pkg := range layers {
		if !seen[pkg] {
			t.Errorf("%s is in the layers table but go list has no such package (module %s)", pkg, module)
		}
	}
}

// TestHookEdgeDecodesOnly: the CLI's hook files (internal/cli) and the
// status line decode a harness's input (with its adapter: claudecode,
// gemini, pi), hand the event to the live loop and encode its reply; they
// import the domain's types and no operation but the loop and the
// workspace they find, so no decision of the loop climbs back into the
// CLI; nor do they inscribe or compact a session themselves
// (Loop.Inscribe, Loop.Compaction): when is the loop's.
func TestHookEdgeDecodesOnly(t *testing.T) {
	files, err := filepath.Glob("internal/cli/hook*.go")
	if err != nil || len(files) == 0 {
		t.Fatalf("no hook files in internal/cli (%v)", err)
	}
	files = append(files, "internal/cli/statusline.go")
	allowed := []string{"cairn", "cairn/claudecode", "cairn/gemini", "cairn/loop", "cairn/pi", "cairn/workspace"}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path := short(strings.Trim(imp.Path.Value, `"`))
			if (path == "cairn" || strings.HasPrefix(path, "cairn/")) && !contains(allowed, path) {
				t.Errorf("%s imports %s: a hook edge decodes, calls cairn/loop and encodes (allowed: %v)", name, path, allowed)
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Inscribe" || sel.Sel.Name == "Compaction") {
					t.Errorf("%s calls %s: the loop decides when a session is inscribed or compacted", fset.Position(call.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestLeanBuild: the lean build of cmd/cairn (-tags lean, installed as
// cairn) links none of the libraries it hands to cairn-full, whose
// package initialisation every hook would pay; the complete build links
// them all, so the check can tell the two apart.
func TestLeanBuild(t *testing.T) {
	heavy := []string{"github.com/modelcontextprotocol/go-sdk/mcp", "net/http", "github.com/jackc/pgx/v5", "cairn/postgres", "cairn/mcp", "cairn/http"}
	deps := func(tags ...string) string {
		out, err := exec.Command("go", append(append([]string{"list", "-deps"}, tags...), "./cmd/cairn")...).Output()
		if err != nil {
			t.Fatalf("go list %v: %v", tags, err)
		}
		var paths []string
		for _, p := range strings.Fields(string(out)) {
			paths = append(paths, short(p))
		}
		return "\n" + strings.Join(paths, "\n") + "\n"
	}
	lean, full := deps("-tags", "lean"), deps()
	for _, p := range heavy {
		if strings.Contains(lean, "\n"+p+"\n") {
			t.Errorf("the lean build links %s", p)
		}
		if !strings.Contains(full, "\n"+p+"\n") {
			t.Errorf("the complete build does not link %s", p)
		}
	}
}
