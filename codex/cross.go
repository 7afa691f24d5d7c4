package codex

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
)

// A crossCall is a Claude Code tool call rendered as Codex's own: a shell
// command (exec_command) or a patch (apply_patch).
type crossCall struct {
	cmd   string // exec_command's command line
	patch string // apply_patch's input
}

// toCodexCall maps a Claude Code (or Gemini CLI, through fromGemini) tool
// call to Codex's tools: Bash, and the
// reads Codex does through its shell (Read, Grep, Glob, LS), become
// exec_command; Edit and Write become apply_patch. Other tools do not map.
func toCodexCall(tool, input string) (crossCall, bool) {
	var in struct {
		Command    string `json:"command"`
		FilePath   string `json:"file_path"`
		Path       string `json:"path"`
		Offset     int    `json:"offset"`
		Limit      int    `json:"limit"`
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
		Content    string `json:"content"`
		Pattern    string `json:"pattern"`
		Glob       string `json:"glob"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return crossCall{}, false
	}
	if tool, input, ok := fromGemini(tool, input); ok {
		return toCodexCall(tool, input)
	}
	switch tool {
	case "Bash":
		if in.Command != "" {
			return crossCall{cmd: in.Command}, true
		}
	case "Read":
		if in.FilePath == "" {
			break
		}
		if in.Offset > 0 || in.Limit > 0 {
			from := max(in.Offset, 1)
			to := "$"
			if in.Limit > 0 {
				to = strconv.Itoa(from + in.Limit - 1)
			}
			return crossCall{cmd: "sed -n '" + strconv.Itoa(from) + "," + to + "p' " + cairn.ShellQuote(in.FilePath)}, true
		}
		return crossCall{cmd: "cat -n " + cairn.ShellQuote(in.FilePath)}, true
	case "Grep":
		if in.Pattern == "" {
			break
		}
		cmd := "rg -n " + cairn.ShellQuote(in.Pattern)
		if in.Glob != "" {
			cmd += " -g " + cairn.ShellQuote(in.Glob)
		}
		if in.Path != "" {
			cmd += " " + cairn.ShellQuote(in.Path)
		}
		return crossCall{cmd: cmd}, true
	case "Glob":
		if in.Pattern == "" {
			break
		}
		cmd := "rg --files -g " + cairn.ShellQuote(in.Pattern)
		if in.Path != "" {
			cmd += " " + cairn.ShellQuote(in.Path)
		}
		return crossCall{cmd: cmd}, true
	case "LS":
		if in.Path != "" {
			return crossCall{cmd: "ls -la " + cairn.ShellQuote(in.Path)}, true
		}
	case "Edit":
		if in.FilePath != "" && in.OldString != "" {
			return crossCall{patch: "*** Begin Patch\n*** Update File: " + in.FilePath + "\n@@\n" +
				prefixLines("-", in.OldString) + prefixLines("+", in.NewString) + "*** End Patch\n"}, true
		}
	case "Write":
		if in.FilePath != "" {
			return crossCall{patch: "*** Begin Patch\n*** Add File: " + in.FilePath + "\n" + prefixLines("+", in.Content) + "*** End Patch\n"}, true
		}
	}
	return crossCall{}, false
}

// item returns the call as a response item.
func (c crossCall) item(id string) *object {
	if c.patch != "" {
		return obj("type", "custom_tool_call", "status", "completed", "call_id", id, "name", "apply_patch", "input", c.patch)
	}
	args := marshal(map[string]string{"cmd": c.cmd})
	return obj("type", "function_call", "name", "exec_command", "arguments", string(args), "call_id", id)
}

// output returns the call's output item.
func (c crossCall) output(id, text string) *object {
	if c.patch != "" {
		return obj("type", "custom_tool_call_output", "call_id", id, "output", text)
	}
	return obj("type", "function_call_output", "call_id", id, "output", text)
}

// prefixLines prefixes every line of s, each ending in a newline.
func prefixLines(prefix, s string) string {
	if s == "" {
		return ""
	}
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.TrimSuffix(s, "\n"), "\n") {
		b.WriteString(prefix + strings.TrimSuffix(l, "\n") + "\n")
	}
	return b.String()
}

// fromGemini restates a Gemini CLI call as the Claude Code call it is:
// run_shell_command as Bash, read_file as Read, replace as Edit,
// write_file as Write, grep_search as Grep, glob as Glob, list_directory as
// LS.
func fromGemini(tool, input string) (string, string, bool) {
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
		return "", "", false
	}
	var args map[string]any
	switch tool {
	case "run_shell_command":
		cmd := in.Command
		if in.DirPath != "" {
			cmd = "cd " + cairn.ShellQuote(in.DirPath) + " && " + cmd
		}
		tool, args = "Bash", map[string]any{"command": cmd}
	case "read_file":
		args = map[string]any{"file_path": in.FilePath}
		if in.StartLine > 0 {
			args["offset"] = in.StartLine
		}
		if in.EndLine > 0 {
			args["limit"] = in.EndLine - max(in.StartLine, 1) + 1
		}
		tool = "Read"
	case "replace":
		tool, args = "Edit", map[string]any{"file_path": in.FilePath, "old_string": in.OldString, "new_string": in.NewString, "replace_all": in.AllowMultiple}
	case "write_file":
		tool, args = "Write", map[string]any{"file_path": in.FilePath, "content": in.Content}
	case "grep_search":
		tool, args = "Grep", map[string]any{"pattern": in.Pattern, "path": in.DirPath, "glob": in.Include}
	case "glob":
		tool, args = "Glob", map[string]any{"pattern": in.Pattern, "path": in.DirPath}
	case "list_directory":
		tool, args = "LS", map[string]any{"path": in.DirPath}
	default:
		return "", "", false
	}
	return tool, string(marshal(args)), true
}
