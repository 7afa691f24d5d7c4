package claudecode

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
)

// A Crossing counts what a session of another harness lost on its way
// into a Claude Code export ([cairn.Crossing]).
type Crossing = cairn.Crossing

// keep returns the lines of a full round: its own lines for a Claude Code
// round, lines made from its blocks for a round of another harness.
func (x *Exporter) keep(m *cairn.Materialization, p *cairn.Piece) ([]*outLine, error) {
	src := m.Source(p.Round.SessionID)
	if src == nil || src.Agent == "" || src.Agent == cairn.AgentClaudeCode {
		return keepLines(p, p.FidelityOr(m.Fidelity))
	}
	if x.Blocks == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "Session %s is a %s session: a Claude Code export of it needs its blocks.", src.ID, src.Agent)
	}
	blocks, err := x.Blocks(p)
	if err != nil {
		return nil, err
	}
	return x.crossLines(p.Round, blocks), nil
}

// crossLines translates a round of another harness from its blocks: user
// text as user lines, each model turn as one assistant message (one line
// per block, as Claude Code writes), tool calls as Claude Code's own where
// they map (a shell command → Bash, a patch of one file → Edit or Write)
// with their results as tool_result lines, other calls as text saying what
// was called and what it returned. Thinking cannot cross (its signature is
// bound to the other vendor) and is dropped and counted.
func (x *Exporter) crossLines(r *cairn.Round, blocks []*cairn.Block) []*outLine {
	var out []*outLine
	calls := map[string]*cairn.Block{}
	mapped := map[string]string{} // call id → tool_use id
	for _, b := range blocks {
		if b.Sidechain {
			continue
		}
		msgID := "msg_cairn_" + b.SessionID[:min(8, len(b.SessionID))] + "_" + sanitize(b.MessageID)
		assistant := func(block map[string]any, uses []string, stop string) {
			o := &outLine{typ: "assistant", ts: b.Timestamp, msgID: msgID, uses: uses, text: block["type"] == "text"}
			o.obj = &object{}
			o.obj.set("type", "assistant")
			o.obj.set("message", map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": "cairn-crossed",
				"content": []any{block}, "stop_reason": stop, "stop_sequence": nil,
				"usage": map[string]int{"input_tokens": 0, "output_tokens": 0}})
			o.obj.set("userType", "external")
			out = append(out, o)
		}
		user := func(content any, results []string) {
			o := &outLine{typ: "user", ts: b.Timestamp, results: results}
			o.obj = &object{}
			o.obj.set("type", "user")
			o.obj.set("message", map[string]any{"role": "user", "content": content})
			o.obj.set("userType", "external")
			out = append(out, o)
		}
		say := func(text string) {
			assistant(map[string]any{"type": "text", "text": text}, nil, "end_turn")
		}
		switch b.Kind {
		case cairn.UserText:
			user(b.Content, nil)
		case cairn.AssistantText:
			if strings.TrimSpace(b.Content) != "" {
				say(b.Content)
			}
		case cairn.Thinking:
			if b.Detail.Condensed() {
				say(b.Content)
			} else {
				x.Crossed.ThinkingDropped++
			}
		case cairn.ToolUse:
			if b.Detail != "" {
				say(b.Content)
				continue
			}
			calls[b.ToolID] = b
			if name, input, ok := toClaudeCall(b.ToolName, b.Content); ok {
				id := "toolu_" + sanitize(b.ToolID)
				mapped[b.ToolID] = id
				assistant(map[string]any{"type": "tool_use", "id": id, "name": name, "input": input}, []string{id}, "tool_use")
			}
		case cairn.ToolResult:
			use := calls[b.ToolID]
			if use == nil {
				if b.Detail != "" {
					say(b.Content)
				}
				continue
			}
			if id, ok := mapped[b.ToolID]; ok {
				x.Crossed.CallsMapped++
				user([]any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": b.Content, "is_error": b.IsError}}, []string{id})
				continue
			}
			x.Crossed.CallsAsText++
			status := "returned"
			if b.IsError {
				status = "failed with"
			}
			say(fmt.Sprintf("[Called %s with %s; it %s:]\n%s", use.ToolName, use.Content, status, b.Content))
		}
	}
	return out
}

var notID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[^a-zA-Z0-9_-]`) })

func sanitize(s string) string { return notID().ReplaceAllString(s, "_") }

// toClaudeCall maps a call of another harness to Claude Code's tools (its
// own Bash, Read, Edit and Write, as an opencode round's come, stay):
// exec_command, shell, local_shell and run_shell_command become Bash; an
// apply_patch that adds one file becomes Write, one that changes one hunk of
// one file becomes Edit; Gemini CLI's read_file, replace, write_file,
// grep_search, glob and list_directory become Read, Edit, Write, Grep, Glob
// and LS. Other
// calls do not map.
func toClaudeCall(tool, input string) (name string, args map[string]any, ok bool) {
	if name, args, ok := fromGemini(tool, input); ok {
		return name, args, true
	}
	switch tool {
	case "Bash", "Read", "Edit", "Write":
		// Claude Code's own, as a reader of another harness gives them.
		if json.Unmarshal([]byte(input), &args) != nil {
			return "", nil, false
		}
		return tool, args, true
	case "exec_command", "shell", "local_shell", "container.exec", "shell_command":
		var in struct {
			Cmd     string          `json:"cmd"`
			Command json.RawMessage `json:"command"`
			Workdir string          `json:"workdir"`
		}
		if json.Unmarshal([]byte(input), &in) != nil {
			return "", nil, false
		}
		cmd := in.Cmd
		if cmd == "" {
			cmd = cairn.CommandLine(in.Command)
		}
		if cmd == "" {
			return "", nil, false
		}
		if in.Workdir != "" {
			cmd = "cd " + cairn.ShellQuote(in.Workdir) + " && " + cmd
		}
		return "Bash", map[string]any{"command": cmd}, true
	case "apply_patch":
		patch := input
		var in struct {
			Input string `json:"input"`
		}
		if json.Unmarshal([]byte(input), &in) == nil && in.Input != "" {
			patch = in.Input
		}
		return patchCall(patch)
	}
	return "", nil, false
}

// patchCall restates a patch in Codex's format: one added file → Write; one
// updated file with one hunk → Edit.
func patchCall(patch string) (string, map[string]any, bool) {
	p, ok := cairn.ReadPatch(patch)
	switch {
	case !ok:
		return "", nil, false
	case p.Added:
		return "Write", map[string]any{"file_path": p.Path, "content": p.Content}, true
	}
	return "Edit", map[string]any{"file_path": p.Path, "old_string": p.Old, "new_string": p.New}, true
}

// fromGemini maps a Gemini CLI call to Claude Code's tools.
func fromGemini(tool, input string) (string, map[string]any, bool) {
	var in struct {
		Command       string `json:"command"`
		DirPath       string `json:"dir_path"`
		FilePath      string `json:"file_path"`
		StartLine     int    `json:"start_line"`
		EndLine       int    `json:"end_line"`
		OldString     string `json:"old_string"`
		NewString     string `json:"new_string"`
		AllowMultiple bool   `json:"allow_multiple"`
		Content       string `json:"content"`
		Pattern       string `json:"pattern"`
		Include       string `json:"include_pattern"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return "", nil, false
	}
	switch tool {
	case "run_shell_command":
		if in.Command == "" {
			break
		}
		cmd := in.Command
		if in.DirPath != "" {
			cmd = "cd " + cairn.ShellQuote(in.DirPath) + " && " + cmd
		}
		return "Bash", map[string]any{"command": cmd}, true
	case "read_file":
		if in.FilePath == "" {
			break
		}
		args := map[string]any{"file_path": in.FilePath}
		if in.StartLine > 0 {
			args["offset"] = in.StartLine
		}
		if in.EndLine > 0 {
			args["limit"] = in.EndLine - max(in.StartLine, 1) + 1
		}
		return "Read", args, true
	case "replace":
		if in.FilePath != "" && in.OldString != "" {
			return "Edit", map[string]any{"file_path": in.FilePath, "old_string": in.OldString, "new_string": in.NewString, "replace_all": in.AllowMultiple}, true
		}
	case "write_file":
		if in.FilePath != "" {
			return "Write", map[string]any{"file_path": in.FilePath, "content": in.Content}, true
		}
	case "grep_search":
		if in.Pattern != "" {
			args := map[string]any{"pattern": in.Pattern}
			if in.DirPath != "" {
				args["path"] = in.DirPath
			}
			if in.Include != "" {
				args["glob"] = in.Include
			}
			return "Grep", args, true
		}
	case "glob":
		if in.Pattern != "" {
			args := map[string]any{"pattern": in.Pattern}
			if in.DirPath != "" {
				args["path"] = in.DirPath
			}
			return "Glob", args, true
		}
	case "list_directory":
		if in.DirPath != "" {
			return "LS", map[string]any{"path": in.DirPath}, true
		}
	}
	return "", nil, false
}

// GeminiBlocks rewrites a Gemini CLI round's calls that map to Claude
// Code's tools (run_shell_command, read_file, replace, write_file, …), and
// their results' names, as Claude Code's, for a writer that maps Claude
// Code's tools to its own (opencode's). Other blocks stay as they are.
func GeminiBlocks(blocks []*cairn.Block) []*cairn.Block { return cairn.MapCalls(blocks, fromGemini) }
