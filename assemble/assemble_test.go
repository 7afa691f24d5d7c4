package assemble_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var t0 = time.Date(2026, 3, 19, 10, 0, 0, 0, time.UTC)

// appTree is a realistic tree: building an app, four levels deep, with
// completed, in-progress, planned, failed and invalidated frames. The
// current frame is b1a.
func appTree() []*cairn.Frame {
	at := func(h int) time.Time { return t0.Add(time.Duration(h) * time.Hour) }
	fr := func(id, parent string, st cairn.FrameStatus, title, criteria string) *cairn.Frame {
		f := &cairn.Frame{ID: id, ParentID: parent, Status: st, Title: title, SuccessCriteria: criteria, Owner: "ann", CreatedAt: at(0)}
		if st != cairn.FramePlanned {
			f.StartedAt = at(1)
		}
		return f
	}
	root := fr("app", "", cairn.FrameInProgress, "Build the application", "A working web app with authentication, a REST API with pagination, and deployment to staging; all tests green.")
	root.SuccessCriteriaCompacted = "Web app: auth + REST API + staging deploy, tests green."
	a := fr("auth", "app", cairn.FrameCompleted, "User authentication", "Users can sign up, log in and log out; sessions survive restarts.")
	a.Results = "Implemented JWT-based auth with refresh tokens. Created the User model, auth middleware, and login/logout routes. Refresh tokens are stored hashed; access tokens live 15 minutes."
	a.ResultsCompacted = "JWT auth with refresh tokens; User model, middleware, login/logout routes."
	a.Artifacts = []string{"src/auth/jwt.go", "src/auth/middleware.go", "src/models/user.go"}
	a.Decisions = []string{"HS256 over RS256: one service, no key distribution", "refresh tokens hashed with SHA-256"}
	a1 := fr("auth-model", "auth", cairn.FrameCompleted, "User model", "User table with unique email.")
	a1.Results = "User model with unique email index."
	b := fr("api", "app", cairn.FrameInProgress, "API routes", "RESTful CRUD endpoints for projects and tasks, with cursor pagination.")
	b.SuccessCriteriaCompacted = "REST CRUD for projects/tasks + cursor pagination."
	b.Decisions = []string{"chi router"}
	b1 := fr("crud", "api", cairn.FrameInProgress, "CRUD endpoints", "GET/POST/PUT/DELETE for projects and tasks, validated input, 404 on missing ids.")
	b1a := fr("crud-tasks", "crud", cairn.FrameInProgress, "Task endpoints", "GET/POST/PUT/DELETE /tasks with input validation; a test per status code (200, 201, 400, 404).")
	b1a.Results = "GET and POST done; PUT in progress."
	b1a.Decisions = []string{"validate with a struct tag library, not by hand"}
	b1a.Artifacts = []string{"src/api/tasks.go"}
	b1b := fr("crud-projects", "crud", cairn.FrameCompleted, "Project endpoints", "CRUD /projects.")
	b1b.Results = "CRUD /projects with validation and tests; shares the error envelope in src/api/errors.go."
	b1b.ResultsCompacted = "CRUD /projects done; error envelope in src/api/errors.go."
	b1b.Artifacts = []string{"src/api/projects.go", "src/api/errors.go"}
	b1c := fr("crud-bulk", "crud", cairn.FramePlanned, "Bulk delete", "DELETE /tasks?ids=… removes up to 100 tasks in one transaction.")
	b1c.DependsOn = []string{"crud-tasks"}
	b1d := fr("crud-graphql", "crud", cairn.FrameInvalidated, "GraphQL layer", "Expose CRUD over GraphQL.")
	b1e := fr("crud-search", "crud", cairn.FrameFailed, "Full-text task search", "Search tasks by title.")
	b1e.Results = "SQLite FTS5 is not available in the hosted database; search needs another approach."
	b2 := fr("pagination", "api", cairn.FramePlanned, "Pagination", "Cursor-based pagination with limits on every list endpoint.")
	b2.SuccessCriteriaCompacted = "Cursor pagination, limit ≤ 100."
	b2.DependsOn = []string{"crud"}
	c := fr("deploy", "app", cairn.FramePlanned, "Deploy to staging", "The app runs on staging behind TLS, deployed by CI on every merge to main.")
	bob := fr("docs", "app", cairn.FrameInProgress, "API documentation", "OpenAPI spec for every endpoint, served at /docs.")
	bob.Owner = "bob"
	return []*cairn.Frame{root, a, a1, b, b1, b1a, b1b, b1c, b1d, b1e, b2, c, bob}
}

func appView() *assemble.View {
	tree := cairn.NewFrameTree(appTree())
	return &assemble.View{
		Mission: &cairn.Mission{
			Text:      "Ship the task-tracker MVP to staging by Friday; email the team when it is live.",
			Workspace: "/home/ann/src/tracker",
			Progress:  "Auth done; projects API done; tasks API half done. Docs in progress (bob).",
			Phase:     &cairn.Phase{Seq: 2, Name: "BUILD", Task: "Implement the API on top of the auth layer.", Outputs: []string{"docs/design.md", "docs/api-sketch.md"}, Reason: cairn.PhaseNext},
		},
		Tree:    tree,
		Current: tree.Frame("crud-tasks"),
		Log: []*cairn.Round{
			{SessionID: "5f0c2a1e-8d4b", Seq: 12, UserPreview: "add POST /tasks", AgentPreview: "Added the handler and a 201 test."},
			{SessionID: "5f0c2a1e-8d4b", Seq: 13, UserPreview: "now PUT", AgentPreview: "Working on PUT /tasks/{id}; validation shared with POST."},
		},
		Files: []assemble.File{{Path: "PROJECT.md", Note: "project overview"}},
		Relay: []assemble.Document{{Name: "todos.json", Text: `[{"id":1,"text":"PUT /tasks","done":false},{"id":2,"text":"DELETE /tasks","done":false}]`}},
	}
}

// compare checks got against testdata/name, or rewrites it with -update.
func compare(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./assemble -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs; got:\n%s", path, got)
	}
}

func TestGolden(t *testing.T) {
	bpe := assemble.MustBPE()
	for _, c := range []struct {
		name   string
		budget cairn.Budget
	}{
		{"roomy", cairn.DefaultBudget()},
		{"tight", cairn.Budget{Tokens: 600, Chars: 2400, Allocations: cairn.DefaultBudget().Allocations}},
		{"floor", cairn.Budget{Tokens: cairn.MinBudgetTokens, Chars: cairn.MinBudgetChars, Allocations: cairn.DefaultBudget().Allocations}},
	} {
		for _, f := range []assemble.Format{assemble.XML, assemble.Markdown, assemble.JSON} {
			t.Run(c.name+"/"+string(f), func(t *testing.T) {
				ctx, err := assemble.Build(appView(), c.budget, f, bpe)
				if err != nil {
					t.Fatal(err)
				}
				if c.budget.Tokens > 0 && ctx.Tokens > c.budget.Tokens || ctx.Chars > c.budget.Chars {
					t.Errorf("%d tokens, %d chars over budget %+v", ctx.Tokens, ctx.Chars, c.budget)
				}
				if f == assemble.JSON && !json.Valid([]byte(ctx.Text)) {
					t.Errorf("invalid JSON:\n%s", ctx.Text)
				}
				ext := map[assemble.Format]string{assemble.XML: "xml", assemble.Markdown: "md", assemble.JSON: "json"}[f]
				compare(t, fmt.Sprintf("app-%s.%s.golden", c.name, ext), ctx.Text)
			})
		}
	}
}

// TestCutsAreReported checks that a tight budget cuts from the lowest
// priority sections first and says so.
func TestCutsAreReported(t *testing.T) {
	b := cairn.Budget{Tokens: 600, Chars: 2400, Allocations: cairn.DefaultBudget().Allocations}
	ctx, err := assemble.Build(appView(), b, assemble.XML, assemble.MustBPE())
	if err != nil {
		t.Fatal(err)
	}
	if len(ctx.Cuts) == 0 || !strings.Contains(ctx.Text, "<cut>Cut to fit the budget:") {
		t.Fatalf("no cut reported:\n%s", ctx.Text)
	}
	bySection := make(map[cairn.Section]int)
	for _, c := range ctx.Cuts {
		bySection[c.Section]++
	}
	if bySection[cairn.SectionRelay] == 0 {
		t.Errorf("relay, the lowest priority, was not cut: %v", ctx.Cuts)
	}
	if !strings.Contains(ctx.Text, appView().Current.SuccessCriteria) {
		t.Errorf("current criteria missing")
	}
}

func TestEmptyView(t *testing.T) {
	ctx, err := assemble.Build(&assemble.View{}, cairn.DefaultBudget(), assemble.JSON, assemble.MustBPE())
	if err != nil || !json.Valid([]byte(ctx.Text)) {
		t.Fatal(ctx, err)
	}
}

func TestTruncatesCriteriaLast(t *testing.T) {
	v := appView()
	long := strings.Repeat("Every endpoint validates its input and returns a typed error. ", 200)
	v.Current.SuccessCriteria = long
	b := cairn.Budget{Tokens: 300, Chars: 1200}
	ctx, err := assemble.Build(v, b, assemble.XML, assemble.MustBPE())
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Tokens > 300 || ctx.Chars > 1200 {
		t.Fatalf("over budget: %d tokens %d chars", ctx.Tokens, ctx.Chars)
	}
	if !strings.Contains(ctx.Text, "…[truncated]") || !strings.Contains(ctx.Text, "success criteria truncated") {
		t.Fatalf("truncation not reported:\n%s", ctx.Text)
	}
	if !strings.Contains(ctx.Text, long[:200]) {
		t.Fatalf("criteria prefix missing:\n%s", ctx.Text)
	}
}

// TestKeepsShortTitle: a title no longer than the truncation mark is never
// replaced by it; the criteria are cut instead.
func TestKeepsShortTitle(t *testing.T) {
	v := appView()
	v.Current.Title = "Deep"
	v.Current.SuccessCriteria = strings.Repeat("Every endpoint validates its input and returns a typed error. ", 200)
	ctx, err := assemble.Build(v, cairn.Budget{Tokens: 300, Chars: 1200}, assemble.XML, assemble.MustBPE())
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(ctx.Text, "<title>Deep</title>") || strings.Contains(ctx.Text, "current title truncated") {
		t.Fatalf("short title cut:\n%s", ctx.Text)
	}
	if ctx.Tokens > 300 || ctx.Chars > 1200 {
		t.Fatalf("over budget: %d tokens %d chars", ctx.Tokens, ctx.Chars)
	}
}

// TestElidesDeepPath: a path so deep that its bare outline outgrows a
// floor budget loses the ancestors nearest the root, never the root, the
// parent or the current frame's criteria, and says so.
func TestElidesDeepPath(t *testing.T) {
	const depth = 40
	var frames []*cairn.Frame
	for i := range depth {
		f := &cairn.Frame{ID: fmt.Sprintf("01JD%022d", i), Status: cairn.FrameInProgress, Title: fmt.Sprintf("Step %d", i)}
		if i > 0 {
			f.ParentID = frames[i-1].ID
		}
		frames = append(frames, f)
	}
	cur := frames[depth-1]
	cur.SuccessCriteria = "The parser accepts every fixture."
	tree := cairn.NewFrameTree(frames)
	b := cairn.Budget{Tokens: cairn.MinBudgetTokens, Chars: cairn.MinBudgetChars}
	for _, fm := range []assemble.Format{assemble.XML, assemble.Markdown, assemble.JSON} {
		ctx, err := assemble.Build(&assemble.View{Tree: tree, Current: tree.Frame(cur.ID)}, b, fm, assemble.MustBPE())
		if err != nil {
			t.Fatalf("%v: %v", fm, err)
		}
		if ctx.Tokens > b.Tokens || ctx.Chars > b.Chars {
			t.Fatalf("%v: over budget: %d tokens %d chars", fm, ctx.Tokens, ctx.Chars)
		}
		for _, want := range []string{frames[0].ID, frames[depth-2].ID, cur.ID, cur.SuccessCriteria, "ancestors left out of the outline"} {
			if !strings.Contains(ctx.Text, want) {
				t.Fatalf("%v: %q missing:\n%s", fm, want, ctx.Text)
			}
		}
		if strings.Contains(ctx.Text, frames[1].ID) {
			t.Fatalf("%v: the ancestor nearest the root is still shown:\n%s", fm, ctx.Text)
		}
		switch fm {
		case assemble.JSON:
			if !json.Valid([]byte(ctx.Text)) || !strings.Contains(ctx.Text, fmt.Sprintf(`"depth":%d`, depth-1)) {
				t.Fatalf("JSON: invalid or the current frame's depth is not its own:\n%s", ctx.Text)
			}
		case assemble.Markdown:
			if !strings.Contains(ctx.Text, frames[0].ID+" [in_progress]\n  - ") {
				t.Fatalf("Markdown: the frame after the root is not its child in the list:\n%s", ctx.Text)
			}
		}
	}
}
