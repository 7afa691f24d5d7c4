package pi

import (
	"encoding/json"

	"github.com/cairn-dev/cairn"
)

// toPiCall maps another harness's tool call to pi's built-in tools:
// Claude Code's Bash and Codex's exec_command and shell become bash; Read
// read; Edit edit (one replacement: path, oldText, newText, which every
// release takes); Write write. Other tools do not map. Gemini CLI's and
// opencode's calls come as Claude Code's (claudecode.GeminiBlocks,
// opencode.ClaudeBlocks).
func toPiCall(tool, input string) (name string, args map[string]any, ok bool) {
	var in struct {
		Command   json.RawMessage `json:"command"`
		Cmd       json.RawMessage `json:"cmd"`
		Workdir   string          `json:"workdir"`
		FilePath  string          `json:"file_path"`
		Offset    int             `json:"offset"`
		Limit     int             `json:"limit"`
		OldString string          `json:"old_string"`
		NewString string          `json:"new_string"`
		Content   string          `json:"content"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return "", nil, false
	}
	switch tool {
	case "Bash", "exec_command", "shell", "local_shell":
		cmd := cairn.CommandLine(in.Cmd)
		if cmd == "" {
			cmd = cairn.CommandLine(in.Command)
		}
		if cmd == "" {
			break
		}
		if in.Workdir != "" {
			cmd = "cd " + cairn.ShellQuote(in.Workdir) + " && " + cmd
		}
		return "bash", map[string]any{"command": cmd}, true
	case "Read":
		if in.FilePath == "" {
			break
		}
		args := map[string]any{"path": in.FilePath}
		if in.Offset > 0 {
			args["offset"] = in.Offset
		}
		if in.Limit > 0 {
			args["limit"] = in.Limit
		}
		return "read", args, true
	case "Edit":
		if in.FilePath != "" && in.OldString != "" {
			return "edit", map[string]any{"path": in.FilePath, "oldText": in.OldString, "newText": in.NewString}, true
		}
	case "Write":
		if in.FilePath != "" {
			return "write", map[string]any{"path": in.FilePath, "content": in.Content}, true
		}
	}
	return "", nil, false
}

// ClaudeBlocks gives a pi round's calls of bash, read, edit and write as
// Claude Code's Bash, Read, Edit and Write, which the writers of the other
// harnesses map; other calls stay as they are.
func ClaudeBlocks(blocks []*cairn.Block) []*cairn.Block { return cairn.MapCalls(blocks, ClaudeCall) }

// ClaudeCall maps one pi call to Claude Code's tool and input. An edit of
// several replacements (edits[], 0.64 and later) does not map.
func ClaudeCall(tool, input string) (name string, args map[string]any, ok bool) {
	var in struct {
		Command string `json:"command"`
		Path    string `json:"path"`
		Offset  int    `json:"offset"`
		Limit   int    `json:"limit"`
		OldText string `json:"oldText"`
		NewText string `json:"newText"`
		Edits   []struct {
			OldText string `json:"oldText"`
			NewText string `json:"newText"`
		} `json:"edits"`
		Content *string `json:"content"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return "", nil, false
	}
	switch tool {
	case "bash":
		if in.Command != "" {
			return "Bash", map[string]any{"command": in.Command}, true
		}
	case "read":
		if in.Path != "" {
			args := map[string]any{"file_path": in.Path}
			if in.Offset > 0 {
				args["offset"] = in.Offset
			}
			if in.Limit > 0 {
				args["limit"] = in.Limit
			}
			return "Read", args, true
		}
	case "edit":
		if len(in.Edits) == 1 {
			in.OldText, in.NewText = in.Edits[0].OldText, in.Edits[0].NewText
		}
		if in.Path != "" && in.OldText != "" && len(in.Edits) <= 1 {
			return "Edit", map[string]any{"file_path": in.Path, "old_string": in.OldText, "new_string": in.NewText}, true
		}
	case "write":
		if in.Path != "" && in.Content != nil {
			return "Write", map[string]any{"file_path": in.Path, "content": *in.Content}, true
		}
	}
	return "", nil, false
}
