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
// dataDir opencode's data folder, runs `cairn hook --agent opencode EVENT`
// in the project with a small JSON on stdin (the session's id, the
// folders, what opencode's event gives), and cairn's live loop decides:
//   - start, when the plugin first sees a session (chat.message or its
//     first request) and after session.compacted: cairn's start context,
//     which goes into every request's system prompt
//     (experimental.chat.system.transform), once;
//   - prompt (chat.message, sent at the prompt's first request, whose
//     system transform gives the model's limits): the prompt's words and
//     the context as opencode counts it (the last reply's tokens, from
//     message.updated, or from opencode's server for a session this
//     process has not seen answer), for the pressure note and
//     suggestions, which go into the system prompt of that prompt's
//     requests;
//   - idle (session.idle, a reply finished): the turn's end, which
//     inscribes the session's new rounds;
//   - compact (experimental.session.compacting): the session inscribed
//     before the summary replaces it, and cairn's line added to the
//     compaction's prompt;
//   - end (the process exits): the session's end, for each session seen.
//
// What cairn says for the person goes to a toast (client.tui.showToast).
// A failing cairn never fails the client: its errors are dropped.
func Plugin(bin, dataDir string) []byte {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	src := PluginMarker + `
// It hands each moment of opencode's sessions to cairn's live loop
// (cairn hook --agent opencode EVENT) and passes on what cairn says.
const CAIRN = ` + q(bin) + `;
const DATA = ` + q(dataDir) + `;

export const CairnPlugin = async ({ client, directory }) => {
  const hook = (event, input) => {
    try {
      const stdin = Buffer.from(JSON.stringify({ ...input, cwd: directory, data: DATA }));
      const r = Bun.spawnSync([CAIRN, "hook", "--agent", "opencode", event], { cwd: directory, stdin, stdout: "pipe", stderr: "pipe", env: process.env });
      const out = r.exitCode === 0 ? r.stdout.toString().trim() : "";
      return out ? JSON.parse(out) : {};
    } catch {
      return {};
    }
  };
  const show = (message) => {
    if (!message) return;
    try {
      Promise.resolve(client.tui.showToast({ body: { title: "cairn", message, variant: "info" } })).catch(() => {});
    } catch {}
  };
  const started = new Map(); // session -> cairn's start context
  const notes = new Map(); // session -> what its current prompt was given
  const used = new Map(); // session -> tokens of its last reply
  const prompts = new Map(); // session -> the prompt its next request answers
  const models = new Map(); // session -> the model its prompts go to
  const start = (id, compacted) => {
    const r = hook("start", { session_id: id, compacted });
    started.set(id, (r.agent || "").trim());
    show(r.person);
  };
  // reply keeps an assistant message's tokens as opencode's overflow check
  // adds them; a compaction's summary is no measure of the context.
  const reply = (info) => {
    const t = info.tokens;
    if (!t || info.summary) return false;
    const n = t.total || (t.input || 0) + (t.output || 0) + ((t.cache && t.cache.read) || 0) + ((t.cache && t.cache.write) || 0);
    if (n > 0) used.set(info.sessionID, { tokens: n, model: info.modelID || "" });
    return n > 0;
  };
  // lastReply reads a session this process has not seen answer from
  // opencode's server (a resumed session): its last reply's tokens.
  const lastReply = async (id) => {
    try {
      let r = await client.session.messages({ path: { id } });
      if (!r || !Array.isArray(r.data)) r = await client.session.messages({ sessionID: id });
      const list = (r && Array.isArray(r.data) && r.data) || [];
      for (let i = list.length - 1; i >= 0; i--) {
        const info = list[i].info;
        if (info && info.role === "assistant") {
          if (info.summary || reply(info)) return;
        }
      }
    } catch {}
  };
  process.on("exit", () => {
    for (const id of started.keys()) hook("end", { session_id: id });
  });
  return {
    event: async ({ event }) => {
      const p = event.properties || {};
      const info = p.info;
      if (event.type === "message.updated" && info && info.role === "assistant") {
        reply(info);
      } else if (event.type === "session.idle" && p.sessionID) {
        show(hook("idle", { session_id: p.sessionID }).person);
      } else if (event.type === "session.compacted" && p.sessionID) {
        used.delete(p.sessionID);
        start(p.sessionID, true);
      }
    },
    "chat.message": async (input, output) => {
      const id = input && input.sessionID;
      if (!id) return;
      if (!started.has(id)) start(id, false);
      const parts = (output && output.parts) || [];
      const m = (output && output.message && output.message.model) || input.model;
      if (m && m.modelID) models.set(id, m.modelID);
      prompts.set(id, parts.filter((x) => x.type === "text" && !x.synthetic).map((x) => x.text).join("\n"));
      if (!used.has(id)) await lastReply(id);
    },
    "experimental.chat.system.transform": async (input, output) => {
      const id = input && input.sessionID;
      if (!id) return;
      if (!started.has(id)) start(id, false);
      const model = input.model || {};
      if (models.has(id) && model.id && models.get(id) !== model.id) return; // its title's, on a small model
      if (prompts.has(id)) {
        // The prompt's first request: the model and its limits are known.
        const limit = model.limit || {};
        const u = used.get(id) || {};
        const r = hook("prompt", { session_id: id, prompt: prompts.get(id), tokens: u.tokens || 0, model: u.model || model.id || "",
          context: limit.context || 0, input: limit.input || 0, output: limit.output || 0 });
        prompts.delete(id);
        notes.set(id, (r.agent || "").trim());
        show(r.person);
      }
      const text = [started.get(id), notes.get(id)].filter(Boolean).join("\n\n");
      if (text) output.system.push(text);
    },
    "experimental.session.compacting": async (input, output) => {
      const id = input && input.sessionID;
      if (!id) return;
      const r = hook("compact", { session_id: id });
      if (r.agent) output.context.push(r.agent);
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
