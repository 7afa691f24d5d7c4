package opencode

import (
	"bytes"
	"strings"
	"testing"
)

// TestInstallPlugin: installing over the plugin an older cairn wrote (its
// marker, `cairn import` on session.idle) replaces it with the one that
// calls the live loop; installing again changes nothing; a file cairn did
// not write is refused, and uninstall leaves it; uninstall removes cairn's.
func TestInstallPlugin(t *testing.T) {
	old := []byte(PluginMarker + "\nconst CAIRN = \"/usr/bin/cairn\";\n" +
		"      if (id) run([\"import\", \"-q\", \"--session\", id, DATA]);\n")
	src, changed, err := InstallPlugin(old, "/usr/bin/cairn", "/data/opencode")
	if err != nil || !changed || bytes.Contains(src, []byte(`"import"`)) {
		t.Fatalf("over the old plugin: changed %v, %v:\n%s", changed, err, src)
	}
	for _, want := range []string{`"hook", "--agent", "opencode", event`, `"experimental.chat.system.transform"`, `"chat.message"`,
		`"experimental.session.compacting"`, `"session.idle"`, `"session.compacted"`, `client.tui.showToast`, `const DATA = "/data/opencode";`} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the plugin lacks %s", want)
		}
	}
	if _, changed, err := InstallPlugin(src, "/usr/bin/cairn", "/data/opencode"); err != nil || changed {
		t.Errorf("again: changed %v, %v", changed, err)
	}
	theirs := []byte("export const Theirs = async () => ({});\n")
	if _, _, err := InstallPlugin(theirs, "/usr/bin/cairn", "/data/opencode"); err == nil {
		t.Error("a plugin cairn did not write was replaced")
	}
	if out, removed, _ := UninstallPlugin(theirs); removed || !bytes.Equal(out, theirs) {
		t.Error("uninstall touched a plugin cairn did not write")
	}
	if out, removed, _ := UninstallPlugin(old); !removed || out != nil {
		t.Error("uninstall left the old plugin")
	}
}
