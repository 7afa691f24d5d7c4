package workspace_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/workspace"
)

// TestMain lets the test binary act as one of several writers in
// TestConcurrentWriters: a child adds its todos and decisions and exits.
func TestMain(m *testing.M) {
	if root := os.Getenv("CAIRN_TEST_WRITER_ROOT"); root != "" {
		if err := writer(root, os.Getenv("CAIRN_TEST_WRITER"), os.Getenv("CAIRN_TEST_WRITES")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func writer(root, name, writes string) error {
	m, err := strconv.Atoi(writes)
	if err != nil {
		return err
	}
	w := workspace.New(root)
	w.Session = name
	for i := range m {
		if _, err := w.AddTodo(fmt.Sprintf("%s todo %d", name, i), "", ""); err != nil {
			return err
		}
		if err := w.AppendDecision(&cairn.Decision{Title: fmt.Sprintf("%s decision %d", name, i)}); err != nil {
			return err
		}
	}
	return nil
}

var now = time.Date(2026, 3, 19, 10, 23, 0, 0, time.UTC)

// MustInit returns a workspace initialized in a new temporary folder,
// with its clock fixed at now.
func MustInit(tb testing.TB) *workspace.Workspace {
	tb.Helper()
	w := workspace.New(tb.TempDir())
	w.Now = func() time.Time { return now }
	if _, err := w.Init(); err != nil {
		tb.Fatal(err)
	}
	return w
}

func readFile(tb testing.TB, path string) []byte {
	tb.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func writeFile(tb testing.TB, path, text string) {
	tb.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		tb.Fatal(err)
	}
}

func TestInit(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		w := workspace.New(t.TempDir())
		w.Now = func() time.Time { return now }
		res, err := w.Init()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(res.Created, " "), "PROJECT.md state.json decisions.md todos.json .gitignore"; got != want {
			t.Fatalf("created %q, want %q", got, want)
		} else if len(res.Kept) != 0 {
			t.Fatalf("kept %q", res.Kept)
		}
		if _, err := w.ReadState(); err != nil {
			t.Fatal(err)
		} else if _, err := w.ReadTodos(); err != nil {
			t.Fatal(err)
		}
		ignore := string(readFile(t, filepath.Join(w.Root, ".gitignore")))
		if !strings.Contains(ignore, ".cairn/*\n") {
			t.Fatalf(".gitignore lacks the store:\n%s", ignore)
		} else if strings.Contains(ignore, "state.json") || strings.Contains(ignore, "\n.cairn/\n") {
			t.Fatalf(".gitignore hides relay files:\n%s", ignore)
		}
		if project := string(readFile(t, filepath.Join(w.Root, "PROJECT.md"))); !strings.HasPrefix(project, "# "+filepath.Base(w.Root)+"\n") {
			t.Fatalf("PROJECT.md starts %q", project[:20])
		}
	})

	t.Run("Existing", func(t *testing.T) {
		root := t.TempDir()
		files := map[string]string{
			"PROJECT.md":   "# Mine\n",
			"state.json":   "{\"phase\": \"hand-written\"}\n",
			"decisions.md": "my decisions\n",
			"todos.json":   "not even json",
			".gitignore":   "node_modules/\n",
		}
		for name, text := range files {
			writeFile(t, filepath.Join(root, name), text)
		}
		w := workspace.New(root)
		res, err := w.Init()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Join(res.Kept, " "), "PROJECT.md state.json decisions.md todos.json"; got != want {
			t.Fatalf("kept %q, want %q", got, want)
		}
		for name, want := range files {
			got := string(readFile(t, filepath.Join(root, name)))
			if name == ".gitignore" {
				if !strings.HasPrefix(got, want) || !strings.Contains(got, ".cairn/*") {
					t.Fatalf(".gitignore = %q", got)
				}
			} else if got != want {
				t.Fatalf("%s changed: %q", name, got)
			}
		}
		// A second init changes nothing at all.
		res, err = w.Init()
		if err != nil {
			t.Fatal(err)
		} else if len(res.Created) != 0 {
			t.Fatalf("second init created %q", res.Created)
		}
	})
}

// TestConcurrentWriters runs N copies of the test binary that each add M
// todos and M decisions to one workspace at once. Without the lock, writes
// are lost or ADR numbers repeat.
func TestConcurrentWriters(t *testing.T) {
	const n, m = 6, 15
	w := MustInit(t)
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), "CAIRN_TEST_WRITER_ROOT="+w.Root,
				fmt.Sprintf("CAIRN_TEST_WRITER=w%d", i), fmt.Sprintf("CAIRN_TEST_WRITES=%d", m))
			if out, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("writer %d: %v\n%s", i, err, out)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	data := readFile(t, filepath.Join(w.Root, "todos.json"))
	if !json.Valid(data) {
		t.Fatalf("todos.json is not valid JSON:\n%s", data)
	}
	todos, err := w.ReadTodos()
	if err != nil {
		t.Fatal(err)
	}
	titles := map[string]bool{}
	ids := map[string]bool{}
	for _, td := range todos.Todos {
		titles[td.Title] = true
		ids[td.ID] = true
	}
	if len(todos.Todos) != n*m || len(titles) != n*m || len(ids) != n*m {
		t.Fatalf("%d todos, %d titles, %d ids; want %d of each", len(todos.Todos), len(titles), len(ids), n*m)
	}

	decisions, err := w.FindDecisions()
	if err != nil {
		t.Fatal(err)
	}
	if len(decisions) != n*m {
		t.Fatalf("%d decisions, want %d", len(decisions), n*m)
	}
	seen := map[string]bool{}
	for i, d := range decisions {
		if d.Number != i+1 {
			t.Fatalf("decision %d is ADR-%03d: numbers not consecutive", i+1, d.Number)
		}
		seen[d.Title] = true
	}
	for i := range n {
		for j := range m {
			if title := fmt.Sprintf("w%d decision %d", i, j); !seen[title] {
				t.Fatalf("lost %q", title)
			}
		}
	}
	text := string(readFile(t, filepath.Join(w.Root, "decisions.md")))
	if got := strings.Count(text, "\n## ADR-"); got != n*m {
		t.Fatalf("decisions.md has %d ADR headings, want %d", got, n*m)
	}
}

// TestHandEdit: a person edits the files between two cairn writes; the
// second write keeps the edit.
func TestHandEdit(t *testing.T) {
	w := MustInit(t)
	if _, err := w.AddTodo("first", "high", ""); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(w.Root, "todos.json")
	text := string(readFile(t, path))
	text = strings.Replace(text, `"notes": ""`, `"notes": "edited by hand <ok> & kept", "owner": "ana"`, 1)
	text = strings.Replace(text, `"last_review"`, `"reviewer": {"name": "ana"}, "last_review"`, 1)
	writeFile(t, path, text)
	if _, err := w.AddTodo("second", "", ""); err != nil {
		t.Fatal(err)
	}
	text = string(readFile(t, path))
	for _, want := range []string{`"notes": "edited by hand <ok> & kept"`, `"owner": "ana"`, `"reviewer": {`, `"title": "second"`, `"id": "TODO-002"`} {
		if !strings.Contains(text, want) {
			t.Fatalf("todos.json lacks %s after a second write:\n%s", want, text)
		}
	}

	if err := w.AppendDecision(&cairn.Decision{Title: "one"}); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(w.Root, "decisions.md")
	writeFile(t, path, string(readFile(t, path))+"\nA note a person wrote.\n")
	if err := w.AppendDecision(&cairn.Decision{Title: "two", Supersedes: 1}); err != nil {
		t.Fatal(err)
	}
	if text := string(readFile(t, path)); !strings.Contains(text, "A note a person wrote.\n\n## ADR-002: two\n") {
		t.Fatalf("decisions.md:\n%s", text)
	}

	if _, err := w.UpdateState(func(s *cairn.State) error { s.Phase = "build"; return nil }); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(w.Root, "state.json")
	writeFile(t, path, strings.Replace(string(readFile(t, path)), `"notes": ""`, `"notes": "by hand"`, 1))
	s, err := w.UpdateState(func(s *cairn.State) error { s.CurrentTask = "ship"; return nil })
	if err != nil {
		t.Fatal(err)
	} else if s.Notes != "by hand" || s.Phase != "build" || s.CurrentTask != "ship" {
		t.Fatalf("state = %+v", s)
	}
}

// TestBOM pins that a byte order mark some editors write is skipped, not
// reported as "invalid character 'ï'", and that errors after it count
// columns as the editor shows them.
func TestBOM(t *testing.T) {
	w := MustInit(t)
	path := filepath.Join(w.Root, "state.json")
	writeFile(t, path, "\ufeff{\"phase\": \"build\", \"notes\": \"by hand\"}\n")
	s, err := w.UpdateState(func(s *cairn.State) error { s.CurrentTask = "ship"; return nil })
	if err != nil {
		t.Fatal(err)
	} else if s.Phase != "build" || s.Notes != "by hand" || s.CurrentTask != "ship" {
		t.Fatalf("state = %+v", s)
	}
	writeFile(t, path, "\ufeff{\"Phase\": \"x\"}")
	_, err = w.ReadState()
	if msg := cairn.ErrorMessage(err); !strings.HasPrefix(msg, "state.json:1:11: Phase: unknown field") {
		t.Fatalf("after a BOM: %v", err)
	}
}

func TestMalformed(t *testing.T) {
	for _, c := range []struct {
		name, file, text, want string
	}{
		{"Syntax", "state.json", "{\n  \"phase\": \"x\",\n  \"notes\": \"a\",,\n}\n", "state.json:3:16: invalid character ','"},
		{"Type", "state.json", "{\n  \"progress\": {\n    \"next_steps\": \"one\"\n  }\n}\n", "state.json:3:19: progress.next_steps: want an array of strings, got the string \"one\""},
		{"Time", "state.json", "{\"last_update\": \"yesterday\"}", "state.json:1:17: last_update: want a time"},
		{"Case", "state.json", "{\"Phase\": \"x\"}", "state.json:1:11: Phase: unknown field \"Phase\": did you mean \"phase\"?"},
		{"Enum", "todos.json", "{\"todos\": [\n {\"id\": \"TODO-001\", \"title\": \"a\", \"status\": \"pending\"},\n {\"id\": \"TODO-002\", \"title\": \"b\", \"status\": \"doing\"}\n]}", "todos.json:3:45: todos[1].status: want one of pending, in_progress, completed, blocked, got \"doing\""},
		{"Duplicate", "todos.json", "{\"todos\": [\n {\"id\": \"TODO-001\", \"title\": \"a\", \"status\": \"pending\"},\n {\"id\": \"TODO-001\", \"title\": \"b\", \"status\": \"pending\"}\n]}", "todos.json:3:9: todos[1].id: \"TODO-001\" is used twice"},
		{"Missing", "todos.json", "{\"todos\": [\n  {\"title\": \"a\", \"status\": \"pending\"}]}", "todos.json:2:3: todos[0]: field \"id\" is missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := MustInit(t)
			path := filepath.Join(w.Root, c.file)
			writeFile(t, path, c.text)
			var err error
			if c.file == "state.json" {
				_, err = w.UpdateState(func(s *cairn.State) error { s.Phase = "x"; return nil })
			} else {
				_, err = w.AddTodo("c", "", "")
			}
			if cairn.ErrorCode(err) != cairn.EINVALID {
				t.Fatalf("err = %v, want EINVALID", err)
			} else if msg := cairn.ErrorMessage(err); !strings.HasPrefix(msg, c.want) {
				t.Fatalf("message:\n %s\nwant prefix:\n %s", msg, c.want)
			}
			if got := readFile(t, path); !bytes.Equal(got, []byte(c.text)) {
				t.Fatalf("file changed:\n%s", got)
			}
		})
	}
}

func TestTodoStatus(t *testing.T) {
	w := MustInit(t)
	if _, err := w.AddTodo("a", "urgent", ""); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("bad priority: err = %v", err)
	}
	if _, err := w.AddTodo("a", "", ""); err != nil {
		t.Fatal(err)
	}
	if _, err := w.SetTodoStatus("1", cairn.TodoBlocked, ""); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("block without reason: err = %v", err)
	}
	if _, err := w.SetTodoStatus("TODO-009", cairn.TodoInProgress, ""); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("unknown todo: err = %v", err)
	}
	td, err := w.SetTodoStatus("001", cairn.TodoCompleted, "shipped")
	if err != nil {
		t.Fatal(err)
	} else if td.CompletedAt == nil || !td.CompletedAt.Equal(now) || td.Notes != "shipped" {
		t.Fatalf("todo = %+v", td)
	}
}

// TestRecover scripts a session's moves and recovers them from the trace
// and boards alone.
func TestRecover(t *testing.T) {
	w := MustInit(t)
	w.Session = "s1"
	for _, dir := range []string{"import", "import/iphone", "cloud", "stack"} {
		if err := os.MkdirAll(filepath.Join(w.Root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeFile(t, filepath.Join(w.Root, "stack", "index.md"), "# stack\n- design.md\n")
	clock := now
	w.Now = func() time.Time { clock = clock.Add(5 * time.Minute); return clock }

	steps := []struct{ to, why string }{
		{"import", "start"},
		{"import/iphone", "need broader extraction plan"},
		{"cloud", "309GB backup needs offsite"},
		{"", "cloud is done for now"}, // back
		{"stack", "noticed need for context management"},
	}
	from := "."
	for i, s := range steps {
		c := &cairn.Checkpoint{Done: fmt.Sprintf("step %d done", i), Next: "continue"}
		var e *workspace.Engaged
		var err error
		if s.to == "" {
			e, err = w.Back(s.why, c)
		} else {
			e, err = w.Engage(from, s.to, s.why, c)
		}
		if err != nil {
			t.Fatalf("step %d: %v", i, err)
		}
		from = e.To
	}
	// Another session's moves and checkpoints do not leak in.
	other := workspace.New(w.Root)
	other.Session, other.Now = "s2", w.Now
	if _, err := other.Engage(".", "cloud", "look", &cairn.Checkpoint{Done: "other"}); err != nil {
		t.Fatal(err)
	}

	r, err := w.Recover("s1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := strings.Join(r.Path, " → "), ". → import → import/iphone → cloud → import/iphone → stack"; got != want {
		t.Fatalf("path:\n %s\nwant:\n %s", got, want)
	}
	if r.Current != "stack" || r.Arrived.Trigger != "noticed need for context management" {
		t.Fatalf("current %q arrived %+v", r.Current, r.Arrived)
	}
	if !r.HasIndex || r.Index != "# stack\n- design.md\n" {
		t.Fatalf("index %q", r.Index)
	}
	var got []string
	for _, v := range r.Visited {
		done := "-"
		if v.Last != nil {
			done = v.Last.Done
		}
		got = append(got, v.Situation+"="+done)
	}
	if got, want := strings.Join(got, " "), ".=step 0 done import=step 1 done import/iphone=step 4 done cloud=step 3 done stack=-"; got != want {
		t.Fatalf("visits:\n %s\nwant:\n %s", got, want)
	}
	if _, err := w.Recover("nobody"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatalf("unknown session: err = %v", err)
	}
}

func TestEngagement(t *testing.T) {
	w := MustInit(t)
	if _, ok, err := workspace.ActiveEngagement(w.Root); err != nil || ok {
		t.Fatalf("before start: ok=%v err=%v", ok, err)
	}
	if _, err := w.StartEngagement("surgery", "compress-before first"); err != nil {
		t.Fatal(err)
	}
	if _, err := w.StartEngagement("other", ""); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("second start: err = %v", err)
	}
	if id, ok, err := workspace.ActiveEngagement(w.Root); err != nil || !ok || id != "surgery" {
		t.Fatalf("active = %q %v %v", id, ok, err)
	}
	if _, err := w.StopEngagement(); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := workspace.ActiveEngagement(w.Root); err != nil || ok {
		t.Fatalf("after stop: ok=%v err=%v", ok, err)
	}
	e, err := w.StartEngagement("tags", "")
	if err != nil {
		t.Fatal(err)
	} else if e.ID != "tags" || !e.Active || len(e.Notes) != 0 {
		t.Fatalf("engagement = %+v", e)
	}
	text := string(readFile(t, filepath.Join(w.Root, ".cairn", "engagement.md")))
	if !strings.Contains(text, "## Earlier engagements\n\n### Engagement\n\n- ID: surgery\n") {
		t.Fatalf("earlier engagement not kept:\n%s", text)
	}
}

func TestSync(t *testing.T) {
	w := MustInit(t)
	if _, err := w.Sync(workspace.StateChange{}); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("sync after init: err = %v", err)
	}
	if _, err := w.AddTodo("a", "", ""); err != nil {
		t.Fatal(err)
	}
	res, err := w.Sync(workspace.StateChange{})
	if err != nil {
		t.Fatal(err)
	} else if strings.Join(res.Changed, " ") != "todos.json" {
		t.Fatalf("changed %q", res.Changed)
	}
	if _, err := w.Sync(workspace.StateChange{}); cairn.ErrorCode(err) != cairn.ECONFLICT {
		t.Fatalf("second sync: err = %v", err)
	}
	if _, err := w.Sync(workspace.StateChange{Task: "next thing"}); err != nil {
		t.Fatal(err)
	}
}

func TestPrimeBudget(t *testing.T) {
	w := MustInit(t)
	for i := range 40 {
		if _, err := w.AddTodo(strings.Repeat("long todo title ", 5)+strconv.Itoa(i), "", ""); err != nil {
			t.Fatal(err)
		}
		if err := w.AppendDecision(&cairn.Decision{Title: "decision " + strconv.Itoa(i), Decision: strings.Repeat("because ", 20)}); err != nil {
			t.Fatal(err)
		}
	}
	for _, chars := range []int{200, 500, 1000, 3000, 6000, 20000} {
		text, err := w.Prime(chars)
		if err != nil {
			t.Fatal(err)
		}
		if n := len([]rune(text)); n > chars {
			t.Fatalf("prime(%d) wrote %d characters", chars, n)
		}
		if (chars == 3000 || chars == 6000) && !strings.Contains(text, "more: cairn todo list)") {
			t.Fatalf("prime(%d) does not say todos were left out:\n%s", chars, text)
		}
	}
}
