package cairn

import (
	"encoding/json"
	"strings"
)

// Which calls write files and which run commands is each harness's own:
// opencode's and pi's write and edit name their file in different fields,
// and Codex's apply_patch names its files inside the patch. These rules are
// the one place that knows each harness's tools; the session-end line, a
// frame's drafted results, surgery's ledger and index and the retention
// probes read calls through them, with the session's [Session.Agent].
//
// Claude Code's own tools count in every harness: another harness's
// rounds are given as Claude Code's to a Claude Code writer and to the
// eval ([MapCalls]), and no other harness names a tool Write, Edit, Bash.

// A FileWrite is a file a tool call writes, edits or deletes, as the call
// names it (relative to the session's folder, or absolute).
type FileWrite struct {
	Path    string
	Deleted bool // a patch's Delete File
}

// FileWrites returns the files a call of tool with input (its JSON, or a
// Codex apply_patch's patch) writes, edits or deletes in a session of
// agent's harness ("" is Claude Code's), in the order the call names
// them, each once; none for a call that writes no file.
func FileWrites(agent, tool, input string) []FileWrite {
	if f := claudeWriteField(tool); f != "" {
		return onePath(ToolInputString(input, f))
	}
	switch agent {
	case AgentCodex:
		switch {
		case tool == "apply_patch":
			if in := ToolInputString(input, "input"); in != "" {
				return patchFiles(in)
			}
			return patchFiles(input)
		case codexShell(tool):
			if cmd := codexCommand(input); strings.Contains(cmd, "apply_patch") || strings.Contains(cmd, "applypatch") {
				return patchFiles(cmd) // the client applies it itself
			}
		}
	case AgentGemini:
		if tool == "write_file" || tool == "replace" {
			return onePath(ToolInputString(input, "file_path"))
		}
	case AgentOpencode:
		switch tool {
		case "write", "edit", "multiedit":
			return onePath(ToolInputString(input, "filePath"))
		case "apply_patch", "patch":
			return patchFiles(ToolInputString(input, "patchText"))
		}
	case AgentPi:
		if tool == "write" || tool == "edit" {
			return onePath(ToolInputString(input, "path"))
		}
	}
	return nil
}

// FilesWritten is the paths of [FileWrites] that are not deleted.
func FilesWritten(agent, tool, input string) []string {
	var out []string
	for _, w := range FileWrites(agent, tool, input) {
		if !w.Deleted {
			out = append(out, w.Path)
		}
	}
	return out
}

// MayWriteFiles reports whether a call of tool, in a session of agent's
// harness, may write files: what a reader of a round's [Round.Tools] asks
// before it reads the round's blocks. Codex's shell tools may, since the
// client applies a patch given to them as apply_patch.
func MayWriteFiles(agent, tool string) bool {
	if claudeWriteField(tool) != "" {
		return true
	}
	switch agent {
	case AgentCodex:
		return tool == "apply_patch" || codexShell(tool)
	case AgentGemini:
		return tool == "write_file" || tool == "replace"
	case AgentOpencode:
		return tool == "write" || tool == "edit" || tool == "multiedit" || tool == "apply_patch" || tool == "patch"
	case AgentPi:
		return tool == "write" || tool == "edit"
	}
	return false
}

// ShellTool reports whether a call of tool runs a shell command in a
// session of agent's harness ("" is Claude Code's): Claude Code's Bash;
// Codex's exec_command, shell, local_shell, container.exec and
// shell_command, whichever era wrote it; Gemini CLI's run_shell_command;
// opencode's and pi's bash.
func ShellTool(agent, tool string) bool {
	if tool == "Bash" {
		return true
	}
	switch agent {
	case AgentCodex:
		return codexShell(tool)
	case AgentGemini:
		return tool == "run_shell_command"
	case AgentOpencode, AgentPi:
		return tool == "bash"
	}
	return false
}

// ShellCommand returns the command line a shell call ([ShellTool]) runs,
// trimmed; "" for any other call or an input that names none.
func ShellCommand(agent, tool, input string) string {
	if !ShellTool(agent, tool) {
		return ""
	}
	if agent == AgentCodex && tool != "Bash" {
		return strings.TrimSpace(codexCommand(input))
	}
	return strings.TrimSpace(ToolInputString(input, "command"))
}

// claudeWriteField is the input field naming the file a Claude Code tool
// writes or edits, "" for a tool that writes none.
func claudeWriteField(tool string) string {
	switch tool {
	case "Write", "Edit", "MultiEdit":
		return "file_path"
	case "NotebookEdit":
		return "notebook_path"
	}
	return ""
}

func codexShell(tool string) bool {
	switch tool {
	case "exec_command", "shell", "local_shell", "container.exec", "shell_command":
		return true
	}
	return false
}

// codexCommand reads a Codex shell call's command: exec_command's cmd, or
// the command of the others (a string or argv).
func codexCommand(input string) string {
	var in struct {
		Cmd     string          `json:"cmd"`
		Command json.RawMessage `json:"command"`
	}
	if json.Unmarshal([]byte(input), &in) != nil {
		return ""
	}
	if in.Cmd != "" {
		return in.Cmd
	}
	return CommandLine(in.Command)
}

func onePath(p string) []FileWrite {
	if p = strings.TrimSpace(p); p == "" {
		return nil
	}
	return []FileWrite{{Path: p}}
}

// patchFiles reads the files a patch in Codex's format names in its
// headers: Add File, Update File and Delete File; an Update File followed
// by Move to leaves its old path deleted and writes the new one.
func patchFiles(patch string) []FileWrite {
	var out []FileWrite
	updated := -1 // the Update File a Move to renames
	for _, line := range strings.Split(patch, "\n") {
		line = strings.TrimSpace(line)
		rest, ok := strings.CutPrefix(line, "*** ")
		if !ok {
			continue
		}
		var w FileWrite
		for _, h := range []string{"Add File:", "Update File:", "Move to:", "Delete File:"} {
			if p, ok := strings.CutPrefix(rest, h); ok {
				w = FileWrite{Path: strings.TrimSpace(p), Deleted: h == "Delete File:"}
				break
			}
		}
		if w.Path == "" {
			continue
		}
		if strings.HasPrefix(rest, "Move to:") && updated >= 0 {
			out[updated].Deleted = true // moved away
		}
		i := indexWrite(out, w.Path)
		if i >= 0 {
			out[i].Deleted = w.Deleted // the last header says what became of it
		} else {
			i = len(out)
			out = append(out, w)
		}
		updated = -1
		if strings.HasPrefix(rest, "Update File:") {
			updated = i
		}
	}
	return out
}

func indexWrite(ws []FileWrite, path string) int {
	for i, w := range ws {
		if w.Path == path {
			return i
		}
	}
	return -1
}
