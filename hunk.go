package cairn

// A Hunk is one run of an edit's lines as the harness recorded it applied
// to the file (Claude Code's structuredPatch): where it starts and how
// many lines it spans in the old and the new file, and its lines, each
// prefixed " " (unchanged), "-" (removed) or "+" (added). It gives an
// edit the file's line numbers that its input and result do not tell.
type Hunk struct {
	OldStart int      `json:"old_start"`
	OldLines int      `json:"old_lines"`
	NewStart int      `json:"new_start"`
	NewLines int      `json:"new_lines"`
	Lines    []string `json:"lines"`
}
