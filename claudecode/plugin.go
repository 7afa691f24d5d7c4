package claudecode

import (
	"encoding/json"
	"strings"
)

// PluginName is the name of cairn's Claude Code plugin (.claude-plugin/).
const PluginName = "cairn"

// PluginEnabled returns the id ("cairn@MARKETPLACE") of cairn's plugin if
// settings (the bytes of a settings.json) enable it: its hooks and MCP
// server are then the plugin's, and install leaves them out.
func PluginEnabled(settings []byte) string {
	var s struct {
		EnabledPlugins map[string]json.RawMessage `json:"enabledPlugins"`
	}
	if json.Unmarshal(settings, &s) != nil {
		return ""
	}
	for id, v := range s.EnabledPlugins {
		if name, _, _ := strings.Cut(id, "@"); name == PluginName && strings.TrimSpace(string(v)) == "true" {
			return id
		}
	}
	return ""
}
