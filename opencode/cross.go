package opencode

import (
	"encoding/json"
	"strings"

	"github.com/cairn-dev/cairn"
)

// toOpencodeCall maps a call of another harness to opencode's own tools:
// Claude Code's Bash, Read, Edit and Write and Codex's shell calls
// (exec_command, shell, …) become bash, read, edit and write; a Codex
// patch that adds one file becomes write, one that changes one hunk of one
// file edit. opencode's own calls stay as they are. Other calls do not map.
func toOpencodeCall(tool, input string) (name string, args map[string]any, ok bool) {
	switch tool {
	case "bash", "read", "edit", "write", "glob", "grep", "list", "todowrite", "todoread", "webfetch", "task", "patch", "skill":
		if json.Unmarshal([]byte(input), &args) != nil {
			return "", nil, false
		}
		return tool, args, true
	}
	var in struct {
		Command    json.RawMessage `json:"command"`
		Cmd        string          `json:"cmd"`
		Workdir    string          `json:"workdir"`
		FilePath   string          `json:"file_path"`
		Offset     int             `json:"offset"`
		Limit      int             `json:"limit"`
		OldString  string          `json:"old_string"`
		NewString  string          `json:"new_string"`
		ReplaceAll bool            `json:"replace_all"`
		Content    string          `json:"content"`
		Input      string          `json:"input"`
	}
	if json.Unmarshal([]byte(input), &in) != nil && tool != "apply_patch" {
		return "", nil, false
	}
	switch tool {
	case "Bash", "exec_command", "shell", "local_shell", "container.exec", "shell_command":
		cmd := in.Cmd
		if cmd == "" {
			cmd = cairn.CommandLine(in.Command)
		}
		if cmd == "" {
			return "", nil, false
		}
		args := map[string]any{"command": cmd, "description": "Runs " + firstWord(cmd)}
		if in.Workdir != "" {
			args["workdir"] = in.Workdir
		}
		return "bash", args, true
	case "Read":
		if in.FilePath == "" {
			return "", nil, false
		}
		args := map[string]any{"filePath": in.FilePath}
		if in.Offset > 0 {
			args["offset"] = in.Offset
		}
		if in.Limit > 0 {
			args["limit"] = in.Limit
		}
		return "read", args, true
	case "Edit":
		if in.FilePath == "" || in.OldString == "" {
			return "", nil, false
		}
		args := map[string]any{"filePath": in.FilePath, "oldString": in.OldString, "newString": in.NewString}
		if in.ReplaceAll {
			args["replaceAll"] = true
		}
		return "edit", args, true
	case "Write":
		if in.FilePath == "" {
			return "", nil, false
		}
		return "write", map[string]any{"filePath": in.FilePath, "content": in.Content}, true
	case "apply_patch":
		patch := input
		if in.Input != "" {
			patch = in.Input
		}
		return patchCall(patch)
	}
	return "", nil, false
}

func firstWord(cmd string) string {
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return "a command"
}

// patchCall restates a patch in Codex's format: one added file → write; one
// updated file with one hunk → edit.
func patchCall(patch string) (string, map[string]any, bool) {
	p, ok := cairn.ReadPatch(patch)
	switch {
	case !ok:
		return "", nil, false
	case p.Added:
		return "write", map[string]any{"filePath": p.Path, "content": p.Content}, true
	}
	return "edit", map[string]any{"filePath": p.Path, "oldString": p.Old, "newString": p.New}, true
}

// ClaudeCall maps an opencode call to Claude Code's tools (bash → Bash,
// read → Read, edit → Edit, write → Write), for a Claude Code export of an
// opencode session. Other calls do not map.
func ClaudeCall(tool, input string) (name string, args map[string]any, ok bool) {
	var in struct {
		Command    string `json:"command"`
		Workdir    string `json:"workdir"`
		FilePath   string `json:"filePath"`
		Offset     int    `json:"offset"`
		Limit      int    `json:"limit"`
		OldString  string `json:"oldString"`
		NewString  string `json:"newString"`
		ReplaceAll bool   `json:"replaceAll"`
		Content    string `json:"content"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return "", nil, false
	}
	switch tool {
	case "bash":
		if in.Command == "" {
			break
		}
		cmd := in.Command
		if in.Workdir != "" {
			cmd = "cd '" + strings.ReplaceAll(in.Workdir, "'", `'\''`) + "' && " + cmd
		}
		return "Bash", map[string]any{"command": cmd}, true
	case "read":
		if in.FilePath == "" {
			break
		}
		args := map[string]any{"file_path": in.FilePath}
		if in.Offset > 0 {
			args["offset"] = in.Offset
		}
		if in.Limit > 0 {
			args["limit"] = in.Limit
		}
		return "Read", args, true
	case "edit":
		if in.FilePath == "" || in.OldString == "" {
			break
		}
		args := map[string]any{"file_path": in.FilePath, "old_string": in.OldString, "new_string": in.NewString}
		if in.ReplaceAll {
			args["replace_all"] = true
		}
		return "Edit", args, true
	case "write":
		if in.FilePath != "" {
			return "Write", map[string]any{"file_path": in.FilePath, "content": in.Content}, true
		}
	}
	return "", nil, false
}

// ClaudeBlocks rewrites an opencode round's calls of bash, read, edit and
// write (and their results' names) as Claude Code's Bash, Read, Edit and
// Write, which the Claude Code and Codex writers map to their own tools.
func ClaudeBlocks(blocks []*cairn.Block) []*cairn.Block { return cairn.MapCalls(blocks, ClaudeCall) }
