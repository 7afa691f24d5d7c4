package gemini

import (
	"encoding/json"

	"github.com/cairn-dev/cairn"
)

// A Crossing counts what a session of another harness lost on its way
// into a Gemini CLI export ([cairn.Crossing]).
type Crossing = cairn.Crossing

// toGeminiCall maps another harness's tool call to Gemini CLI's tools:
// Claude Code's Bash, Codex's exec_command and shell become
// run_shell_command; Read read_file; Edit replace; Write write_file; Grep
// grep_search; Glob glob; LS list_directory. Other tools do not map.
func toGeminiCall(tool, input string) (name string, args map[string]any, ok bool) {
	var in struct {
		Command    json.RawMessage `json:"command"`
		Cmd        json.RawMessage `json:"cmd"`
		Workdir    string          `json:"workdir"`
		FilePath   string          `json:"file_path"`
		Path       string          `json:"path"`
		Offset     int             `json:"offset"`
		Limit      int             `json:"limit"`
		OldString  string          `json:"old_string"`
		NewString  string          `json:"new_string"`
		ReplaceAll bool            `json:"replace_all"`
		Content    string          `json:"content"`
		Pattern    string          `json:"pattern"`
		Glob       string          `json:"glob"`
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
		args := map[string]any{"command": cmd}
		if in.Workdir != "" {
			args["dir_path"] = in.Workdir
		}
		return "run_shell_command", args, true
	case "Read":
		if in.FilePath == "" {
			break
		}
		args := map[string]any{"file_path": in.FilePath}
		if in.Offset > 0 {
			args["start_line"] = in.Offset
		}
		if in.Limit > 0 {
			args["end_line"] = max(in.Offset, 1) + in.Limit - 1
		}
		return "read_file", args, true
	case "Edit":
		if in.FilePath != "" && in.OldString != "" {
			args := map[string]any{"file_path": in.FilePath, "instruction": "Replace the text in " + in.FilePath + ".", "old_string": in.OldString, "new_string": in.NewString}
			if in.ReplaceAll {
				args["allow_multiple"] = true
			}
			return "replace", args, true
		}
	case "Write":
		if in.FilePath != "" {
			return "write_file", map[string]any{"file_path": in.FilePath, "content": in.Content}, true
		}
	case "Grep":
		if in.Pattern != "" {
			args := map[string]any{"pattern": in.Pattern}
			if in.Path != "" {
				args["dir_path"] = in.Path
			}
			if in.Glob != "" {
				args["include_pattern"] = in.Glob
			}
			return "grep_search", args, true
		}
	case "Glob":
		if in.Pattern != "" {
			args := map[string]any{"pattern": in.Pattern}
			if in.Path != "" {
				args["dir_path"] = in.Path
			}
			return "glob", args, true
		}
	case "LS":
		if in.Path != "" {
			return "list_directory", map[string]any{"dir_path": in.Path}, true
		}
	}
	return "", nil, false
}
