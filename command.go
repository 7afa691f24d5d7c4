package cairn

import (
	"encoding/json"
	"strings"
)

// CommandLine reads the command of another harness's shell call, given
// as a string or as argv (Codex's shell: ["bash", "-lc", "…"], whose
// script is the command); "" when it is neither, or an empty argv.
func CommandLine(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var argv []string
	if json.Unmarshal(raw, &argv) != nil || len(argv) == 0 {
		return ""
	}
	if len(argv) == 3 && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	return strings.Join(argv, " ")
}
