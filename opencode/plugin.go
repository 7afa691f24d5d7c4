package opencode

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
)

// PluginMarker opens the plugin file cairn writes; uninstall removes a
// file only when it opens with it.
const PluginMarker = "// cairn: written by `cairn install opencode`; `cairn uninstall opencode` removes this file."

// PluginPath is where a project's plugin goes: opencode loads every
// .opencode/plugins/*.js of the project (1.1 and later read plugin/ and
// plugins/).
func PluginPath(project string) string {
	return filepath.Join(project, ".opencode", "plugins", "cairn.js")
}

// Plugin returns the plugin's source. opencode has no hooks of its own;
// its plugins stand for them. This one, with bin the cairn command and
// dataDir opencode's data folder:
//   - on session.idle (a reply finished) runs `cairn import -q --session
//     ID DATADIR` in the project, which inscribes that session's new
//     messages;
//   - on experimental.chat.system.transform (every request's system
//     prompt) adds what `cairn prime` prints, the project's cold start,
//     once read per session.
//
// A failing cairn never fails the client: its errors are dropped.
func Plugin(bin, dataDir string) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	src := PluginMarker + `
// It inscribes opencode's sessions into cairn's store as replies finish,
// and gives the agent the project's cold start (cairn prime) in its system
// prompt.
const CAIRN = ` + q(bin) + `;
const DATA = ` + q(dataDir) + `;

export const CairnPlugin = async ({ directory }) => {
  const run = (args) => {
    try {
      const r = Bun.spawnSync([CAIRN, ...args], { cwd: directory, stdout: "pipe", stderr: "pipe", env: process.env });
      return r.exitCode === 0 ? r.stdout.toString() : "";
    } catch {
      return "";
    }
  };
  const primed = new Map();
  return {
    event: async ({ event }) => {
      const id = event.type === "session.idle" && event.properties && event.properties.sessionID;
      if (id) run(["import", "-q", "--session", id, DATA]);
    },
    "experimental.chat.system.transform": async (input, output) => {
      const key = (input && input.sessionID) || "";
      if (!primed.has(key)) primed.set(key, run(["prime", "--chars", "10000"]).trim());
      const text = primed.get(key);
      if (text) output.system.push(text);
    },
  };
};
`
	return []byte(src)
}

// InstallPlugin returns the plugin file's new content and whether it
// changed. A file there that cairn did not write is refused.
func InstallPlugin(old []byte, bin, dataDir string) ([]byte, bool, error) {
	src := Plugin(bin, dataDir)
	if len(old) > 0 && !bytes.HasPrefix(old, []byte(PluginMarker)) {
		return nil, false, cairn.Errorf(cairn.EINVALID, "a plugin cairn did not write is there: move it, then install again")
	}
	return src, !bytes.Equal(old, src), nil
}

// UninstallPlugin returns nothing, and true, for a file cairn wrote; a
// file it did not write is left as it is.
func UninstallPlugin(old []byte) ([]byte, bool, error) {
	if !strings.HasPrefix(string(old), PluginMarker) {
		return old, false, nil
	}
	return nil, true, nil
}
