package codex

import (
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
)

// MCPServerName is the name cairn's MCP server has in config.toml.
const MCPServerName = "cairn"

// cairn's lines in config.toml and AGENTS.md sit between markers, so they
// are found and removed exactly, whatever else the files hold.
const (
	configBegin = "# cairn:begin (added by `cairn install codex`; `cairn uninstall codex` removes it)"
	configEnd   = "# cairn:end"
	notesBegin  = "<!-- cairn-codex:begin -->"
	notesEnd    = "<!-- cairn-codex:end -->"
)

// mcpBlock returns cairn's block of config.toml: the MCP server table.
func mcpBlock(bin string) string {
	return configBegin + "\n[mcp_servers." + MCPServerName + "]\ncommand = " + strconv.Quote(bin) +
		"\nargs = [\"mcp\"]\n" + configEnd + "\n"
}

// serverTable finds a definition of the cairn server outside cairn's block:
// a [mcp_servers.cairn] table (quoted or not) or a dotted key.
var serverTable = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^\s*(\[\s*mcp_servers\s*\.\s*"?` + MCPServerName + `"?\s*\]|mcp_servers\s*\.\s*"?` + MCPServerName + `"?\s*\.)`)
})

// InstallMCP returns config.toml with cairn's MCP server (run as bin mcp)
// at its end, and whether that changed it. Everything else in the file,
// comments included, is kept byte for byte; an older cairn block is
// replaced. Returns EINVALID, naming the line, if the file already defines
// a server named cairn that cairn did not add.
func InstallMCP(config []byte, bin string) ([]byte, bool, error) {
	rest, _ := UninstallMCP(config)
	if loc := serverTable().FindIndex(rest); loc != nil {
		line := strings.Count(string(rest[:loc[0]]), "\n") + 1
		return nil, false, cairn.Errorf(cairn.EINVALID, "line %d already defines an MCP server named %q that cairn did not add: rename or remove it, then install again", line, MCPServerName)
	}
	s := string(rest)
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	if s != "" && !strings.HasSuffix(s, "\n\n") {
		s += "\n"
	}
	out := []byte(s + mcpBlock(bin))
	return out, string(out) != string(config), nil
}

// UninstallMCP returns config.toml without cairn's block, and whether it
// had one.
func UninstallMCP(config []byte) ([]byte, bool) {
	s := string(config)
	i := strings.Index(s, configBegin)
	if i < 0 {
		return config, false
	}
	j := strings.Index(s[i:], configEnd)
	if j < 0 {
		return config, false
	}
	end := i + j + len(configEnd)
	if end < len(s) && s[end] == '\n' {
		end++
	}
	before := s[:i]
	if strings.HasSuffix(before, "\n\n") && end == len(s) {
		before = strings.TrimSuffix(before, "\n")
	}
	return []byte(before + s[end:]), true
}

// AgentNotes is what a Codex agent is told about cairn in AGENTS.md.
const AgentNotes = notesBegin + `
## cairn

This project's context is kept by cairn (its MCP server "cairn" is set up
in Codex). Commands you may use:
- ` + "`cairn push TITLE --criteria …` / `cairn pop --results …`" + `: start and finish a subtask (frame)
- ` + "`cairn checkpoint DONE --next NEXT`" + `: note progress on the board
- ` + "`cairn search QUERY`" + `: find where something was said in earlier sessions (run ` + "`cairn import`" + ` first)
- ` + "`cairn context`" + `: the assembled context again, after a long turn
` + notesEnd + "\n"

// InstallNotes returns AGENTS.md with [AgentNotes] at its end (an older
// version replaced), and whether that changed it.
func InstallNotes(text string) (string, bool) {
	rest, _ := UninstallNotes(text)
	if rest != "" && !strings.HasSuffix(rest, "\n\n") {
		rest = strings.TrimRight(rest, "\n") + "\n\n"
	}
	out := rest + AgentNotes
	return out, out != text
}

// UninstallNotes returns AGENTS.md without cairn's notes, and whether it
// had them.
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
