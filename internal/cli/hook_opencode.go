package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn/loop"
)

// opencodeHookEvents are the events "cairn hook --agent opencode" takes.
const opencodeHookEvents = "start, prompt, idle, compact, end"

// An opencodeReply is what cairn's opencode plugin does with a moment's
// [loop.Reply]: the agent's text goes into the session's system prompt
// (start, prompt) or the compaction's prompt (compact), the person's into
// a toast.
type opencodeReply struct {
	Agent  string `json:"agent,omitempty"`
	Person string `json:"person,omitempty"`
}

// runOpencodeHook runs "cairn hook --agent opencode EVENT" for cairn's
// opencode plugin: it decodes the plugin's input ([loop.OpencodeHook]),
// hands its moment to the live loop ([loop.FromOpencode]) and prints the
// reply as JSON; nothing outside a workspace. Any failure exits non-zero
// with one line on stderr, which the plugin drops.
func (m *Main) runOpencodeHook(ctx context.Context, args []string) error {
	if len(args) != 1 || !strings.Contains(", "+opencodeHookEvents+",", ", "+args[0]+",") {
		return &hookError{fmt.Errorf("hook --agent opencode takes one EVENT: %s", opencodeHookEvents)}
	}
	event := args[0]
	m.inHook = true
	defer m.endHookStore()
	if err := m.opencodeHook(ctx, event); err != nil {
		return &hookError{fmt.Errorf("hook opencode %s: %s", event, strings.Join(strings.Fields(errorText(err)), " "))}
	}
	return nil
}

func (m *Main) opencodeHook(ctx context.Context, event string) error {
	var in loop.OpencodeHook
	if err := json.NewDecoder(m.Stdin).Decode(&in); err != nil {
		return err
	}
	in.Event = event
	if in.Data == "" {
		in.Data = m.opencodeDataDir()
	}
	w, _, err := m.hookWorkspace(in.Cwd)
	if err != nil || w == nil {
		return err // nil outside a cairn project: stay out of the way
	}
	w.Session = m.sessionID(in.SessionID)
	l, err := m.liveLoop(w)
	if err != nil {
		return err
	}
	if l.OpencodeLogs, err = m.opencodeLogDir(""); err != nil {
		return err
	}
	l.Folders = append(l.Folders, l.OpencodeLogs)
	r, err := l.Handle(ctx, loop.FromOpencode(in))
	if err != nil || r.Agent == "" && r.Person == "" {
		return err
	}
	return json.NewEncoder(m.Stdout).Encode(opencodeReply(r))
}
