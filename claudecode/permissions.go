package claudecode

import (
	"path/filepath"
	"strings"
)

// CommandRules are the permission rules that let the agent run cairn's
// commands in Bash without a question: "Bash(cairn:*)", the name the
// agent notes and hook texts teach, and the rule for bin when the hooks
// run cairn by another name or path. Without them auto mode and
// sub-agents (which cannot ask) are refused every cairn command.
func CommandRules(bin string) []string {
	rules := []string{"Bash(cairn:*)"}
	if bin != "" && bin != "cairn" {
		rules = append(rules, "Bash("+bin+":*)")
	}
	return rules
}

// AllowCommands returns settings (the bytes of a settings file named name;
// empty for none) with [CommandRules] of bin in "permissions.allow", and
// whether that changed anything. Other entries keep their order and bytes.
func AllowCommands(settings []byte, bin, name string) ([]byte, bool, error) {
	root, err := parseSettingsObject(settings, name)
	if err != nil {
		return nil, false, err
	}
	perms, err := root.object("permissions")
	if err != nil {
		return nil, false, err
	}
	for _, rule := range CommandRules(bin) {
		if err := addString(perms, "allow", rule); err != nil {
			return nil, false, err
		}
	}
	root.set("permissions", perms.marshal())
	out := root.marshal()
	return out, !sameJSON(settings, out), nil
}

// DisallowCommands returns settings without the rules [AllowCommands]
// adds (any "Bash(X:*)" whose X runs cairn, by any path), and whether it
// had any; a permissions object left empty goes too.
func DisallowCommands(settings []byte) ([]byte, bool, error) {
	root, err := parseSettingsObject(settings, "settings.json")
	if err != nil {
		return nil, false, err
	}
	if err := disallow(root, IsCommandRule); err != nil {
		return nil, false, err
	}
	out := root.marshal()
	return out, !sameJSON(settings, out), nil
}

// disallow drops the rules of "permissions.allow" that drop reports, and
// the list and the permissions object if that leaves them empty.
func disallow(root *settingsObject, drop func(rule string) bool) error {
	if _, ok := root.get("permissions"); !ok {
		return nil
	}
	perms, err := root.object("permissions")
	if err != nil {
		return err
	}
	allow, err := stringList(perms, "allow")
	if err != nil {
		return err
	}
	for _, rule := range allow {
		if drop(rule) {
			if err := removeString(perms, "allow", rule); err != nil {
				return err
			}
		}
	}
	if len(perms.keys) == 0 {
		root.del("permissions")
	} else {
		root.set("permissions", perms.marshal())
	}
	return nil
}

// IsCommandRule reports whether a permission rule is one of
// [CommandRules]: "Bash(X:*)" with X cairn by any path.
func IsCommandRule(rule string) bool {
	inner, ok := strings.CutPrefix(rule, "Bash(")
	if !ok {
		return false
	}
	cmd, ok := strings.CutSuffix(inner, ":*)")
	return ok && strings.TrimSuffix(filepath.Base(strings.Trim(cmd, `"'`)), ".exe") == "cairn"
}
