package claudecode

import (
	"encoding/json"
	"slices"

	"github.com/cairn-dev/cairn"
)

// LocalSettingsFile is the project's settings file that is the user's own
// (the client keeps it out of git): where the client records the user's
// answer to its question about a new server in .mcp.json.
const LocalSettingsFile = "settings.local.json"

// MCPToolsRule is the permission rule that lets every tool of cairn's
// server run without asking.
const MCPToolsRule = "mcp__" + MCPServerName

// ApproveMCP returns settings (the bytes of .claude/settings.local.json;
// empty for none) with cairn's server approved and its tools allowed:
// "enabledMcpjsonServers" gets "cairn", as when the user answers "Use this
// MCP server" to the interactive client's question about a new server in
// .mcp.json (until then the client does not start it), and
// "permissions.allow" gets [MCPToolsRule]. A server the user rejected
// ("disabledMcpjsonServers") stays rejected: rejected is true and nothing
// changes. Other entries keep their order and bytes.
func ApproveMCP(settings []byte) (out []byte, changed, rejected bool, err error) {
	root, err := parseSettingsObject(settings, LocalSettingsFile)
	if err != nil {
		return nil, false, false, err
	}
	disabled, err := stringList(root, "disabledMcpjsonServers")
	if err != nil {
		return nil, false, false, err
	}
	if slices.Contains(disabled, MCPServerName) {
		return settings, false, true, nil
	}
	if err := addString(root, "enabledMcpjsonServers", MCPServerName); err != nil {
		return nil, false, false, err
	}
	perms, err := root.object("permissions")
	if err != nil {
		return nil, false, false, err
	}
	if err := addString(perms, "allow", MCPToolsRule); err != nil {
		return nil, false, false, err
	}
	root.set("permissions", perms.marshal())
	out = root.marshal()
	return out, !sameJSON(settings, out), false, nil
}

// UnapproveMCP returns settings without what [ApproveMCP] added, and
// whether it had any of it; an object or list left empty goes too.
func UnapproveMCP(settings []byte) ([]byte, bool, error) {
	root, err := parseSettingsObject(settings, LocalSettingsFile)
	if err != nil {
		return nil, false, err
	}
	if err := removeString(root, "enabledMcpjsonServers", MCPServerName); err != nil {
		return nil, false, err
	}
	if err := disallow(root, func(rule string) bool { return rule == MCPToolsRule }); err != nil {
		return nil, false, err
	}
	out := root.marshal()
	return out, !sameJSON(settings, out), nil
}

// stringList returns member key of o as a list of strings (none if
// absent). Returns EINVALID if it is something else.
func stringList(o *settingsObject, key string) ([]string, error) {
	raw, ok := o.get(key)
	if !ok {
		return nil, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "%s: %q is not a list of strings; fix it by hand, cairn left it as it is.", LocalSettingsFile, key)
	}
	return list, nil
}

// addString appends s to the list of strings at key unless it holds it,
// keeping the other items' bytes.
func addString(o *settingsObject, key, s string) error {
	list, err := stringList(o, key)
	if err != nil || slices.Contains(list, s) {
		return err
	}
	var items []json.RawMessage
	if raw, ok := o.get(key); ok {
		_ = json.Unmarshal(raw, &items) // a list of strings, checked above
	}
	o.set(key, array(append(items, marshal(s))))
	return nil
}

// removeString drops s from the list of strings at key, and the list if
// it is left empty.
func removeString(o *settingsObject, key, s string) error {
	list, err := stringList(o, key)
	if err != nil || !slices.Contains(list, s) {
		return err
	}
	var items, kept []json.RawMessage
	raw, _ := o.get(key)
	_ = json.Unmarshal(raw, &items)
	for i, it := range items {
		if list[i] != s {
			kept = append(kept, it)
		}
	}
	if len(kept) == 0 {
		o.del(key)
	} else {
		o.set(key, array(kept))
	}
	return nil
}
