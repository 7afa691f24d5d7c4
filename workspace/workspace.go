// Package workspace reads and writes a workspace's plain files: the relay
// files at its root (PROJECT.md, state.json, decisions.md, todos.json), the
// boards and indices of its situations, and the traces and engagement
// state under .cairn/.
//
// # Writing
//
// People, agents and git edit these files too, so cairn never writes from
// a copy it read earlier. Every change is a read-modify-write under the
// workspace lock (flock on .cairn/lock): the file is read afresh, changed,
// and replaced atomically (temporary file, fsync, rename). A hand edit made
// between two cairn writes is therefore kept, and two agents never
// interleave a write. A file that does not parse is reported with its line
// and column and left untouched.
package workspace

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Dir is the folder that marks a workspace; it holds the lock, traces,
// engagement state and, by default, the embedded store.
const Dir = ".cairn"

// A Workspace is a project folder holding [Dir].
type Workspace struct {
	Root string

	// Session is the acting agent's session id: it names the trace that
	// moves go to and signs checkpoints and state updates.
	Session string

	// Now is the clock; tests fix it.
	Now func() time.Time

	// LockTimeout bounds the wait for another writer; 0 means
	// [DefaultLockTimeout].
	LockTimeout time.Duration
}

// New returns the workspace rooted at root, acting as the default session.
func New(root string) *Workspace {
	return &Workspace{Root: root, Session: cairn.DefaultSession, Now: time.Now}
}

// Find returns the nearest folder from dir upwards that holds [Dir].
func Find(dir string) (root string, ok bool) {
	for d := dir; ; {
		if info, err := os.Stat(filepath.Join(d, Dir)); err == nil && info.IsDir() {
			return d, true
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", false
		}
		d = parent
	}
}

// Open returns the workspace that holds dir. Returns ENOTFOUND if no folder
// from dir upwards holds [Dir].
func Open(dir string) (*Workspace, error) {
	root, ok := Find(dir)
	if !ok {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No cairn workspace in %s or above it: run cairn init.", dir)
	}
	return New(root), nil
}

// now returns the clock's time to the second, which is all the files keep.
func (w *Workspace) now() time.Time { return w.Now().Truncate(time.Second) }

func (w *Workspace) path(name string) string { return filepath.Join(w.Root, name) }

func (w *Workspace) private(name ...string) string {
	return filepath.Join(append([]string{w.Root, Dir}, name...)...)
}

// NamesFile reports whether session can name a file of its own under
// .cairn (its pressure marks, revived session, changes seen, trace, what
// it was given): not empty, no separator, not hidden.
func NamesFile(session string) bool {
	return session != "" && !strings.ContainsAny(session, `/\`) && !strings.HasPrefix(session, ".")
}

//go:embed template
var templates embed.FS

// gitignoreLines are what init adds to .gitignore, in this order: what
// .cairn/ holds is machine state (the store, its lock, each session's
// pressure marks, reported windows, revived sessions, changes seen,
// context files) but for what is meant for git (traces, the engagement,
// the person's config); the relay files and boards sit outside it.
// .claude/settings.local.json is the person's own Claude Code settings,
// where cairn install writes its approval and permissions.
var gitignoreLines = []string{
	".cairn/*",
	"!.cairn/" + cairn.TracesDir + "/",
	"!.cairn/" + cairn.EngageFile,
	"!.cairn/" + ConfigFile,
	".claude/settings.local.json",
}

// InitResult says what [Workspace.Init] did.
type InitResult struct {
	Created []string // files written
	Kept    []string // files that existed and were left as they were
}

// Init makes w.Root a workspace: it creates [Dir] and the relay files from
// the seed's templates, and adds the store to .gitignore. It never
// overwrites a file that exists.
func (w *Workspace) Init() (*InitResult, error) {
	if err := os.MkdirAll(w.private(cairn.TracesDir), 0o755); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	unlock, err := w.lock()
	if err != nil {
		return nil, err
	}
	defer unlock()

	now := w.now()
	state, err := encodeJSON(&cairn.State{
		Phase:     "planning",
		Progress:  cairn.Progress{Completed: []string{}, Blocked: []string{}, NextSteps: []string{}},
		SessionID: w.Session, LastUpdate: now,
	})
	if err != nil {
		return nil, err
	}
	todos, err := encodeJSON(&cairn.TodoList{Todos: []*cairn.Todo{}, LastReview: &now})
	if err != nil {
		return nil, err
	}
	project, _ := templates.ReadFile("template/PROJECT.md")
	project = []byte(strings.ReplaceAll(string(project), "{{name}}", filepath.Base(w.Root)))
	decisions, _ := templates.ReadFile("template/decisions.md")

	var res InitResult
	for _, f := range []struct {
		name string
		data []byte
	}{
		{cairn.ProjectFile, project},
		{cairn.StateFile, state},
		{cairn.DecisionsFile, decisions},
		{cairn.TodosFile, todos},
	} {
		if _, err := os.Lstat(w.path(f.name)); err == nil {
			res.Kept = append(res.Kept, f.name)
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("init: %w", err)
		}
		if err := writeFile(w.path(f.name), f.data); err != nil {
			return nil, err
		}
		res.Created = append(res.Created, f.name)
	}
	if changed, err := w.ignoreStore(); err != nil {
		return nil, err
	} else if changed {
		res.Created = append(res.Created, ".gitignore")
	} else {
		res.Kept = append(res.Kept, ".gitignore")
	}
	// The freshly made files are the baseline a first sync compares with.
	if _, err := os.Stat(w.private(cairn.SyncFile)); errors.Is(err, fs.ErrNotExist) {
		if err := w.recordSync(now); err != nil {
			return nil, err
		}
	}
	return &res, nil
}

// ignoreStore adds the store to .gitignore unless it is there, and
// reports whether it changed the file.
func (w *Workspace) ignoreStore() (bool, error) {
	path := w.path(".gitignore")
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("init: %w", err)
	}
	have := map[string]bool{}
	for _, line := range strings.Split(string(data), "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var add []string
	for _, line := range gitignoreLines {
		if !have[line] && !have["/"+line] {
			add = append(add, line)
		}
	}
	if len(add) == 0 {
		return false, nil
	}
	text := string(data)
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	text += "# cairn: machine and per-session state, your own Claude Code settings (relay files, boards, traces belong in git)\n" + strings.Join(add, "\n") + "\n"
	return true, writeFile(path, []byte(text))
}

// readFile returns a workspace file's bytes, nil if it does not exist.
func readFile(path string) ([]byte, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	} else if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return data, nil
}
