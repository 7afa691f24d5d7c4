package cairn

import "strings"

// A FilePatch is what a patch in Codex's apply_patch format does when it
// touches one file: adds it whole (Added, Content) or replaces one run of
// its lines (Old by New) — the two shapes other harnesses have a tool for
// (Write and Edit in Claude Code, write and edit in opencode).
type FilePatch struct {
	Path     string
	Added    bool
	Content  string
	Old, New string
}

// ReadPatch reads patch in Codex's format, "*** Begin Patch" to "*** End
// Patch". It reports false for any other shape: several files, several
// hunks, a deletion, a move, a hunk with no line to find.
func ReadPatch(patch string) (FilePatch, bool) {
	lines := strings.Split(strings.TrimRight(patch, "\n"), "\n")
	if len(lines) < 3 || lines[0] != "*** Begin Patch" || lines[len(lines)-1] != "*** End Patch" {
		return FilePatch{}, false
	}
	body := lines[1 : len(lines)-1]
	files := 0
	for _, l := range body {
		if strings.HasPrefix(l, "*** ") {
			files++
		}
	}
	if files != 1 {
		return FilePatch{}, false
	}
	if path, ok := strings.CutPrefix(body[0], "*** Add File: "); ok {
		var content strings.Builder
		for _, l := range body[1:] {
			added, ok := strings.CutPrefix(l, "+")
			if !ok {
				return FilePatch{}, false
			}
			content.WriteString(added + "\n")
		}
		return FilePatch{Path: path, Added: true, Content: content.String()}, true
	}
	path, ok := strings.CutPrefix(body[0], "*** Update File: ")
	if !ok {
		return FilePatch{}, false
	}
	var old, neu []string
	hunks := 0
	for _, l := range body[1:] {
		switch {
		case strings.HasPrefix(l, "@@"):
			hunks++
		case strings.HasPrefix(l, "-"):
			old = append(old, l[1:])
		case strings.HasPrefix(l, "+"):
			neu = append(neu, l[1:])
		case strings.HasPrefix(l, " "):
			old, neu = append(old, l[1:]), append(neu, l[1:])
		default:
			return FilePatch{}, false
		}
	}
	if hunks > 1 || len(old) == 0 {
		return FilePatch{}, false
	}
	return FilePatch{Path: path, Old: strings.Join(old, "\n"), New: strings.Join(neu, "\n")}, true
}

// ShellQuote quotes s for a POSIX shell, leaving it bare when it is only
// letters, digits and / . - _.
func ShellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
