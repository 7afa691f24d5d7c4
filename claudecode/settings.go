package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Settings files are shared with people and other tools: cairn edits them
// by adding and removing its own entries, keeping every other key, its
// order and its value as they were. Installing twice changes nothing;
// uninstalling removes exactly what installing added, and the entries of
// earlier cairn versions (a SessionStart hook running "cairn prime").

// MCPServerName is the name cairn's MCP server is registered under; Claude
// Code shows its tools as mcp__cairn__<tool>.
const MCPServerName = "cairn"

// InstallHooks returns settings (the bytes of a settings.json; empty for
// none) with a command hook "BIN hook EVENT" for each of [HookEvents], and
// whether that changed anything. Earlier cairn entries are replaced.
// Returns EINVALID, naming the line, if settings is not a JSON object.
func InstallHooks(settings []byte, bin string) ([]byte, bool, error) {
	var entries []HookEntry
	for _, event := range HookEvents {
		entries = append(entries, HookEntry{Event: event, Command: bin + " hook " + event, Matcher: HookMatcher(event)})
	}
	return EditHooks(settings, HookEvents, entries)
}

// UninstallHooks returns settings without cairn's hooks, and whether it
// had any. Events and a "hooks" settingsObject left empty are removed.
func UninstallHooks(settings []byte) ([]byte, bool, error) {
	return EditHooks(settings, HookEvents, nil)
}

// A HookEntry is one command hook cairn registers: its event, its command
// and its matcher ("" for none).
type HookEntry struct {
	Event, Command, Matcher string
}

// EditHooks returns settings with cairn's command hooks of events replaced
// by entries (none: removed), and whether that changed anything; every
// other hook, key and byte is kept. Gemini CLI's settings.json declares
// hooks in the same shape, so its installer uses it too.
func EditHooks(settings []byte, events []string, entries []HookEntry) ([]byte, bool, error) {
	root, err := parseSettingsObject(settings, "settings.json")
	if err != nil {
		return nil, false, err
	}
	hooks, err := root.object("hooks")
	if err != nil {
		return nil, false, err
	}
	for _, event := range events {
		var groups []json.RawMessage
		if raw, ok := hooks.get(event); ok {
			if err := json.Unmarshal(raw, &groups); err != nil {
				return nil, false, cairn.Errorf(cairn.EINVALID, "settings.json: hooks.%s is not a list.", event)
			}
		}
		groups, err := withoutCairn(groups)
		if err != nil {
			return nil, false, err
		}
		for _, e := range entries {
			if e.Event != event {
				continue
			}
			g := hookGroup{Hooks: []hookCommand{{Type: "command", Command: e.Command}}}
			if e.Matcher != "" {
				m := e.Matcher
				g.Matcher = &m
			}
			groups = append(groups, marshal(g))
		}
		if len(groups) == 0 {
			hooks.del(event)
			continue
		}
		hooks.set(event, array(groups))
	}
	if len(hooks.keys) == 0 {
		root.del("hooks")
	} else {
		root.set("hooks", hooks.marshal())
	}
	out := root.marshal()
	return out, !sameJSON(settings, out), nil
}

type mcpServer struct {
	Type    string   `json:"type"`
	Command string   `json:"command"`
	Args    []string `json:"args"`
}

type hookGroup struct {
	Matcher *string       `json:"matcher,omitempty"`
	Hooks   []hookCommand `json:"hooks"`
}

type hookCommand struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// withoutCairn returns groups without cairn's commands; a group left with
// no command is dropped, any other is kept byte for byte.
func withoutCairn(groups []json.RawMessage) ([]json.RawMessage, error) {
	var out []json.RawMessage
	for _, raw := range groups {
		g, err := parseSettingsObject(raw, "hook")
		if err != nil {
			out = append(out, raw)
			continue
		}
		var cmds []json.RawMessage
		if json.Unmarshal(g.vals["hooks"], &cmds) != nil {
			out = append(out, raw)
			continue
		}
		var kept []json.RawMessage
		for _, c := range cmds {
			var hc hookCommand
			if json.Unmarshal(c, &hc) == nil && isCairnCommand(hc.Command) {
				continue
			}
			kept = append(kept, c)
		}
		switch {
		case len(kept) == len(cmds):
			out = append(out, raw)
		case len(kept) > 0:
			g.set("hooks", array(kept))
			out = append(out, g.marshal())
		}
	}
	return out, nil
}

// isCairnCommand reports whether a hook command is one cairn installed:
// "cairn hook EVENT", or the "cairn prime" of earlier set-ups, with cairn
// named by any path.
func isCairnCommand(command string) bool {
	f := strings.Fields(command)
	if len(f) < 2 || strings.TrimSuffix(filepath.Base(strings.Trim(f[0], `"'`)), ".exe") != "cairn" {
		return false
	}
	return f[1] == "hook" || f[1] == "prime"
}

// InstallMCP returns an MCP configuration (.mcp.json, or ~/.claude.json
// for the user) with cairn's server, run as "BIN mcp" over stdio, and
// whether that changed anything.
func InstallMCP(config []byte, bin string) ([]byte, bool, error) {
	root, err := parseSettingsObject(config, "MCP configuration")
	if err != nil {
		return nil, false, err
	}
	servers, err := root.object("mcpServers")
	if err != nil {
		return nil, false, err
	}
	servers.set(MCPServerName, marshal(mcpServer{Type: "stdio", Command: bin, Args: []string{"mcp"}}))
	root.set("mcpServers", servers.marshal())
	out := root.marshal()
	return out, !sameJSON(config, out), nil
}

// UninstallMCP returns config without cairn's server, and whether it had
// one.
func UninstallMCP(config []byte) ([]byte, bool, error) {
	root, err := parseSettingsObject(config, "MCP configuration")
	if err != nil {
		return nil, false, err
	}
	servers, err := root.object("mcpServers")
	if err != nil {
		return nil, false, err
	}
	servers.del(MCPServerName)
	if len(servers.keys) == 0 {
		root.del("mcpServers")
	} else {
		root.set("mcpServers", servers.marshal())
	}
	out := root.marshal()
	return out, !sameJSON(config, out), nil
}

// IsEmptyObject reports whether data is "{}" (give or take space): what an
// uninstall leaves of a file that only held cairn's entries.
func IsEmptyObject(data []byte) bool {
	return string(bytes.Join(bytes.Fields(data), nil)) == "{}"
}

// Agent notes: the lines CLAUDE.md (or AGENTS.md) gets with --agents-md,
// between markers so that they can be found and removed.
const (
	notesBegin = "<!-- cairn:begin -->"
	notesEnd   = "<!-- cairn:end -->"
)

// AgentNotes is what an agent is told about cairn.
const AgentNotes = notesBegin + `
## cairn

This project's context is kept by cairn: hooks inscribe every session and
start each one with the assembled context (mission, frame stack, state).
- Push a frame when you start a subtask you could retry or summarise as a
  unit: ` + "`cairn push TITLE --criteria …`" + `; pop it when done with what it
  produced: ` + "`cairn pop --results … --compact …`" + `. Popped frames' rounds
  collapse to their results (` + "`cairn compress-frames`" + `, pop prints it).
- A "cairn: your context is N% full" note means the window is filling:
  pop finished frames, ` + "`cairn checkpoint DONE --next NEXT`" + `, then run the
  command it gives (` + "`cairn advise SESSION`" + ` / ` + "`cairn revive SESSION`" + `): a
  fresh session that starts oriented, instead of a lossy compaction.
- Sub-agents get the relay context and are recorded as hand-offs in
  state.json; a child reports with ` + "`cairn handoff --result …`" + `.
- ` + "`cairn search QUERY`" + ` finds earlier work; ` + "`cairn recover SESSION`" + ` where a
  session was; ` + "`cairn context`" + ` the assembled context again.
` + notesEnd + "\n"

// InstallNotes returns text with [AgentNotes] at its end, or unchanged if
// it has them (then replaced by the current version).
func InstallNotes(text string) (string, bool) {
	rest, _ := UninstallNotes(text)
	if rest != "" && !strings.HasSuffix(rest, "\n\n") {
		rest = strings.TrimRight(rest, "\n") + "\n\n"
	}
	out := rest + AgentNotes
	return out, out != text
}

// UninstallNotes returns text without cairn's notes, and whether it had
// them.
func UninstallNotes(text string) (string, bool) {
	i := strings.Index(text, notesBegin)
	if i < 0 {
		return text, false
	}
	j := strings.Index(text[i:], notesEnd)
	if j < 0 {
		return text, false
	}
	end := i + j + len(notesEnd)
	if end < len(text) && text[end] == '\n' {
		end++
	}
	before := text[:i]
	if strings.HasSuffix(before, "\n\n") && end == len(text) {
		before = strings.TrimSuffix(before, "\n")
	}
	return before + text[end:], true
}

// A settingsObject is a JSON object whose keys keep their order and whose values
// keep their bytes.
type settingsObject struct {
	keys []string
	vals map[string]json.RawMessage
}

// parseObject parses data (empty: an empty settingsObject). Returns EINVALID,
// naming line and column, if data is not one JSON object.
func parseSettingsObject(data []byte, name string) (*settingsObject, error) {
	o := &settingsObject{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return o, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	fail := func(err error) error {
		off := dec.InputOffset()
		var syn *json.SyntaxError
		if e := json.Unmarshal(data, new(any)); errors.As(e, &syn) {
			err, off = e, syn.Offset-1
		}
		line, col := 1, 1
		for _, c := range data[:max(0, min(int(off), len(data)))] {
			if col++; c == '\n' {
				line, col = line+1, 1
			}
		}
		return cairn.Errorf(cairn.EINVALID, "%s:%d:%d: %v; fix it by hand, cairn left it as it is.", name, line, col, err)
	}
	if t, err := dec.Token(); err != nil {
		return nil, fail(err)
	} else if t != json.Delim('{') {
		return nil, fail(fmt.Errorf("not a JSON object"))
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, fail(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fail(err)
		}
		o.set(t.(string), v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, fail(err)
	}
	if _, err := dec.Token(); err == nil {
		return nil, fail(fmt.Errorf("more than one JSON value"))
	}
	return o, nil
}

func (o *settingsObject) get(key string) (json.RawMessage, bool) {
	v, ok := o.vals[key]
	return v, ok
}

func (o *settingsObject) set(key string, v json.RawMessage) {
	if _, ok := o.vals[key]; !ok {
		o.keys = append(o.keys, key)
	}
	o.vals[key] = v
}

func (o *settingsObject) del(key string) {
	if _, ok := o.vals[key]; !ok {
		return
	}
	delete(o.vals, key)
	for i, k := range o.keys {
		if k == key {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

// settingsObject returns member key as an settingsObject (empty if absent). Returns
// EINVALID if it is something else.
func (o *settingsObject) object(key string) (*settingsObject, error) {
	raw, ok := o.get(key)
	if !ok {
		return &settingsObject{vals: map[string]json.RawMessage{}}, nil
	}
	sub, err := parseSettingsObject(raw, key)
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "%q is not a JSON object; fix it by hand, cairn left it as it is.", key)
	}
	return sub, nil
}

// marshal returns o indented by two spaces, with a final newline.
func (o *settingsObject) marshal() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		key, _ := json.Marshal(k)
		b.Write(key)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	var out bytes.Buffer
	if err := json.Indent(&out, b.Bytes(), "", "  "); err != nil {
		panic(err) // every value came from the decoder or json.Marshal
	}
	out.WriteByte('\n')
	return out.Bytes()
}

// marshal returns v as JSON without escaping HTML characters, which
// would change a person's "a > b" into "a \u003e b".
func marshal(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // only cairn's own structs come here
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

// array joins values into a JSON array, keeping their bytes.
func array(items []json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, it := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(it)
	}
	b.WriteByte(']')
	return b.Bytes()
}

// sameJSON reports whether a and b hold the same JSON, whatever their
// spacing.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return bytes.Equal(a, b)
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
