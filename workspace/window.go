package workspace

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// windowDir holds the context window the client's status line reported,
// per session and per model: .cairn/window/<session> and
// .cairn/window/model-<model>, each "SIZE MODEL". Hooks and commands that
// do not get the status line's input (UserPromptSubmit, advise, a print
// mode session of a model seen before) read it back.
const windowDir = "window"

// SetReportedWindow records the context window size the client reported
// for session and its model. It writes only what changed: the status line
// runs after every message.
func (w *Workspace) SetReportedWindow(session, model string, size int64) error {
	if size <= 0 {
		return nil
	}
	line := strconv.FormatInt(size, 10) + " " + model
	for _, name := range []string{session, modelFile(model)} {
		if !fileName(name) {
			continue
		}
		path := w.private(windowDir, name)
		if data, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(data)) == line {
			continue
		}
		if err := os.MkdirAll(w.private(windowDir), 0o755); err != nil {
			return err
		}
		if err := writeFile(path, []byte(line+"\n")); err != nil {
			return err
		}
	}
	return nil
}

// ReportedWindow returns the window the status line last reported for
// session (while on model, when model is not ""), else for model, and the
// model it was reported with; 0 if none.
func (w *Workspace) ReportedWindow(session, model string) (int64, string, error) {
	for i, name := range []string{session, modelFile(model)} {
		if !fileName(name) {
			continue
		}
		data, err := os.ReadFile(w.private(windowDir, name))
		if errors.Is(err, os.ErrNotExist) {
			continue
		} else if err != nil {
			return 0, "", err
		}
		size, m, _ := strings.Cut(strings.TrimSpace(string(data)), " ")
		if i == 0 && model != "" && !sameModel(m, model) {
			continue // the session changed models since (/model)
		}
		if n, err := strconv.ParseInt(size, 10, 64); err == nil && n > 0 {
			return n, m, nil
		}
	}
	return 0, "", nil
}

// sameModel reports whether two names are one model as a session runs it:
// the status line may name it with the "[1m]" the transcript of an older
// client leaves out (2.1.197 writes claude-opus-4-8 for
// claude-opus-4-8[1m]).
func sameModel(a, b string) bool {
	base := func(s string) string { return strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), "[1m]")) }
	return base(a) == base(b)
}

func modelFile(model string) string {
	if model == "" {
		return ""
	}
	return "model-" + model
}

// fileName reports whether name can be a file of its own in a folder.
func fileName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "/\\\x00") && !strings.HasPrefix(name, ".") && len(name) < 200
}
