package claudecode

import (
	"encoding/json"
	"path/filepath"
	"strings"
)

// statusLine is the statusLine setting of settings.json.
type statusLine struct {
	Type    string `json:"type"`
	Command string `json:"command"`
	Padding *int   `json:"padding,omitempty"`
}

// InstallStatusLine returns settings with Claude Code's statusLine
// running "BIN statusline", and whether that changed anything. A
// statusLine that is not cairn's is kept: other is then its command (or
// its JSON), for the caller to say so. Returns EINVALID, naming the line,
// if settings is not a JSON object.
func InstallStatusLine(settings []byte, bin string) (out []byte, changed bool, other string, err error) {
	root, err := parseSettingsObject(settings, "settings.json")
	if err != nil {
		return nil, false, "", err
	}
	if raw, ok := root.get("statusLine"); ok {
		var sl statusLine
		if json.Unmarshal(raw, &sl) != nil || !isCairnStatusLine(sl.Command) {
			if sl.Command != "" {
				return settings, false, sl.Command, nil
			}
			return settings, false, string(raw), nil
		}
	}
	root.set("statusLine", marshal(statusLine{Type: "command", Command: bin + " statusline"}))
	out = root.marshal()
	return out, !sameJSON(settings, out), "", nil
}

// UninstallStatusLine returns settings without cairn's statusLine, and
// whether it had one; another statusLine is kept.
func UninstallStatusLine(settings []byte) ([]byte, bool, error) {
	root, err := parseSettingsObject(settings, "settings.json")
	if err != nil {
		return nil, false, err
	}
	raw, ok := root.get("statusLine")
	var sl statusLine
	if !ok || json.Unmarshal(raw, &sl) != nil || !isCairnStatusLine(sl.Command) {
		return settings, false, nil
	}
	root.del("statusLine")
	return root.marshal(), true, nil
}

// isCairnStatusLine reports whether a status line command is cairn's, with
// cairn named by any path.
func isCairnStatusLine(command string) bool {
	f := strings.Fields(command)
	return len(f) == 2 && strings.TrimSuffix(filepath.Base(strings.Trim(f[0], `"'`)), ".exe") == "cairn" && f[1] == "statusline"
}
