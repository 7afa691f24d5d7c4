// One round, opened: its prompt, then its steps (the server cuts them with
// cairn.Steps, the rule surgery uses), each tool call paired with its result
// and shown as one collapsed line that opens on a rich view.
"use strict";

// human writes a count of characters or tokens in a few characters.
function human(n) {
  if (n >= 1e6) return (n / 1e6).toFixed(1).replace(/\.0$/, "") + "M";
  if (n >= 1e3) return (n / 1e3).toFixed(n >= 1e4 ? 0 : 1).replace(/\.0$/, "") + "k";
  return String(n);
}

// duration writes the time between two timestamps: 4s, 3m12s, 1h05m.
function duration(from, to) {
  if (!from || !to || from.startsWith("0001") || to.startsWith("0001")) return "";
  const s = Math.max(0, Math.round((Date.parse(to) - Date.parse(from)) / 1000));
  if (s < 60) return s + "s";
  if (s < 3600) return Math.floor(s / 60) + "m" + String(s % 60).padStart(2, "0") + "s";
  return Math.floor(s / 3600) + "h" + String(Math.floor(s / 60) % 60).padStart(2, "0") + "m";
}

function parseJSON(s) {
  try { return JSON.parse(s); } catch { return null; }
}

// isCompactionBoundary reports whether b marks where the client compacted
// the context; isCompactionSummary whether b is the summary it wrote.
const isCompactionBoundary = (b) => b.kind === "compaction" || (b.role === "system" && b.kind === "meta-text" && /^Conversation compacted\b/.test(b.content));
const isCompactionSummary = (b) => b.kind === "meta-text" && /^This session is being continued from a previous conversation/.test(b.content);

// expand opens or closes a round's body. open forces it open (re-rendered).
async function expand(row, open) {
  const body = row.querySelector(".body");
  const toggle = row.querySelector(".toggle");
  if (body && !open) { body.remove(); toggle.textContent = "▸"; row.classList.remove("open"); closedRound(Number(row.dataset.seq)); return null; }
  if (body) body.remove();
  toggle.textContent = "▾";
  row.classList.add("open");
  if (!open) setWhere(Number(row.dataset.seq), null);
  const b = el("div", { class: "body" }, el("span", { class: "muted" }, "Loading…"));
  row.append(b);
  try {
    const url = `/api/sessions/${encodeURIComponent(view.id)}/rounds/${row.dataset.seq}?fidelity=${encodeURIComponent(view.fidelity)}`;
    const data = withSteps(await api("GET", url));
    b.replaceChildren(...roundBody(data));
    // A long round's blocks come a page at a time: a button fetches the
    // next, whose steps go on from the last page's.
    let last = data.last;
    const more = (next, total) => {
      if (!next) return;
      const btn = el("button", { class: "more" }, `More blocks (${total - next} left)`);
      btn.addEventListener("click", async (e) => {
        e.stopPropagation();
        btn.disabled = true;
        try {
          const page = withSteps(await api("GET", `${url}&blocks_from=${next}`), last);
          const cont = page.promptBlocks.filter(visible);
          btn.replaceWith(cont.length ? continuedView(last, cont) : "", ...page.steps.map((s) => stepView(s)));
          last = page.last;
          more(page.next_blocks, page.blocks_total);
        } catch (err) {
          btn.replaceWith(el("span", { class: "error" }, err.message));
        }
      });
      b.append(btn);
    };
    more(data.next_blocks, data.blocks_total);
    return b;
  } catch (err) {
    b.replaceChildren(el("span", { class: "error" }, err.message));
    return null;
  }
}

// withSteps hands each step of a round's page its blocks: the page sends
// each block once, in blocks; the prompt is the first data.prompt of them,
// a step the run block_from..block_to.
//
// A later page of a long round (prev: the last page's last step, {seq,
// msg}) numbers its steps afresh: they go on from prev's. Its blocks
// before its first step are prev's; its first step is prev again when it
// goes on with prev's message. data.last is the page's last step.
function withSteps(data, prev) {
  const blocks = data.blocks || [];
  const steps = data.steps || [];
  numberImages(blocks);
  let offset = 0;
  if (prev) {
    const first = steps.length ? blocks[steps[0].block_from] : null;
    const same = !data.prompt && first && first.message_id && first.message_id === prev.msg;
    offset = prev.seq - (same ? 1 : 0);
  }
  data.steps = steps.map((s) => ({ ...s, seq: s.seq + offset, blocks: blocks.slice(s.block_from, s.block_to) }));
  data.promptBlocks = blocks.slice(0, data.prompt || 0);
  const end = data.steps[data.steps.length - 1];
  const msg = (st) => (st.blocks.find((b) => b.role === "assistant" && b.message_id) || {}).message_id;
  data.last = end ? { seq: end.seq, round: end.round, msg: msg(end) } : prev || null;
  return data;
}

// continuedView shows the blocks a page begins with that belong to the
// last page's last step.
function continuedView(last, blocks) {
  return el("section", { class: "step continued", dataset: { step: last ? last.seq : 0, tools: "" } },
    el("div", { class: "step-head" }, el("span", { class: "seq mono muted" }, last ? `${last.round}.${last.seq} (cont.)` : "(cont.)")),
    el("div", { class: "step-body" }, blocksView(blocks, null)));
}

// plural writes a count with its noun: 1 round, 2 rounds.
const plural = (n, word, many) => `${n} ${n === 1 ? word : many || word + "s"}`;

// roundBody renders an opened round: a sticky bar (outline, collapse and
// expand all, a tool filter), the prompt, the steps.
function roundBody(data) {
  const steps = data.steps;
  const prompt = data.promptBlocks.filter(visible);
  const out = [];
  if (steps.length) out.push(roundBar(data));
  if (prompt.length) out.push(el("div", { class: "prompt" }, blocksView(prompt, null)));
  out.push(...steps.map((s) => stepView(s)));
  if (!prompt.length && !steps.length) out.push(el("span", { class: "muted" }, data.round.seq === 0 ? "(nothing before the first prompt but metadata)" : "(no blocks)"));
  return out;
}

// visible drops blocks with nothing to show.
const visible = (b) => b.kind === "tool-use" || b.kind === "tool-result" || (b.content || "").trim() !== "";

function roundBar(data) {
  const steps = data.steps;
  const tools = new Map();
  for (const s of steps) for (const c of s.calls || []) tools.set(c.tool, (tools.get(c.tool) || 0) + 1);
  const filter = el("select", { class: "tool-filter", title: "show only the steps that call this tool" },
    el("option", { value: "" }, steps.length === 1 ? "the one step" : `all ${steps.length} steps`),
    [...tools].sort((a, b) => b[1] - a[1]).map(([t, n]) => el("option", { value: t }, `${t} (${n})`)));
  const outline = el("details", { class: "outline" }, el("summary", {}, "Outline"),
    el("ol", {}, steps.map((s) => el("li", {}, el("a", { href: "#", dataset: { step: s.seq }, onclick: (e) => { e.preventDefault(); e.target.closest("details").open = false; goToStep(e.target.closest(".body"), s.seq); } }, stepTitle(s))))));
  // The round's line counts the main chain's calls; calls an inline
  // subagent made (older transcripts hold them in the round) are counted
  // apart, so the two figures agree.
  let calls = 0, side = 0;
  for (const b of data.blocks) if (b.kind === "tool-use") b.sidechain ? side++ : calls++;
  const bar = el("div", { class: "round-bar" },
    el("span", { class: "muted round-figures" }, `round ${data.round.seq} · ${plural(steps.length, "step")} · ${plural(calls, "tool call")}` +
      (side ? ` · ${side} more by inline subagents` : "") +
      (data.next_blocks ? ` on this page (blocks ${data.blocks_from + 1}–${data.blocks_from + data.blocks.length} of ${data.blocks_total})` : "")),
    outline,
    el("button", { class: "collapse-all", onclick: (e) => openAll(e.target.closest(".body"), false) }, "Collapse all"),
    el("button", { class: "expand-all", onclick: (e) => openAll(e.target.closest(".body"), true) }, "Expand all"),
    filter);
  filter.addEventListener("change", () => {
    for (const s of bar.parentNode.querySelectorAll(".step")) s.hidden = !!filter.value && !s.dataset.tools.split(" ").includes(filter.value);
  });
  return bar;
}

function openAll(body, open) {
  for (const d of body.querySelectorAll("details.call, details.think, details.step-raw")) d.open = open;
}

function goToStep(body, seq) {
  const s = body.querySelector(`.step[data-step="${seq}"]`);
  if (!s) return false;
  s.hidden = false;
  reveal(s, "start");
  s.classList.add("flash");
  setTimeout(() => s.classList.remove("flash"), 1200);
  return true;
}

// stepTitle is a step's line in the outline: its calls and its words.
function stepTitle(s) {
  const calls = (s.calls || []).map((c) => c.tool + (c.arg ? " " + c.arg : ""));
  return `${s.round}.${s.seq} ${calls.join(" · ")}${s.text ? (calls.length ? " | " : "") + s.text : ""}`;
}

function stepView(s) {
  const calls = s.calls || [];
  const d = duration(s.started_at, s.ended_at);
  const ref = `${s.round}.${s.seq}`;
  const head = el("div", { class: "step-head", title: `step ${ref}: ${plural(calls.length, "call")}, lines ${s.first_line}–${s.last_line}` },
    copyButton(ref, { label: ref, class: "seq mono step-ref", title: `copy the step's reference, ${ref}` }),
    copyButton(`cairn inject ${s.session_id} ${ref}`, { label: "inject", class: "step-inject", title: `copy the command that prints this step in full: cairn inject ${s.session_id} ${ref}` }),
    el("span", { class: "muted" }, when(s.started_at).slice(11) + (d && d !== "0s" ? " · " + d : "")));
  const sec = el("section", { class: "step", role: "article", "aria-label": "step " + ref, dataset: { step: s.seq, tools: calls.map((c) => c.tool).join(" ") } }, head, el("div", { class: "step-body" }, blocksView(s.blocks.filter(visible), s)));
  // A step's buttons are out of the Tab order but while the cursor (j, k)
  // is on it: a round of 150 steps is not 450 more Tab stops.
  for (const b of sec.querySelectorAll("button")) { b.tabIndex = -1; b.dataset.roving = ""; }
  sec.stepInfo = s; // the palette lists it
  return sec;
}

// blocksView renders blocks in order, each tool call with its result (by
// id) at the call's place, and a compaction as a divider.
function blocksView(blocks, step) {
  const results = new Map();
  for (const b of blocks) if (b.kind === "tool-result" && b.tool_id) results.set(b.tool_id, b);
  const used = new Set();
  const out = [];
  let call = 0;
  for (const b of blocks) {
    if (b.kind === "tool-use") {
      const r = results.get(b.tool_id);
      if (r) used.add(r);
      out.push(callView(b, r, step && step.calls ? step.calls[call] : null));
      call++;
    } else if (b.kind === "tool-result") {
      if (!used.has(b)) out.push(callView(null, b, null));
    } else out.push(blockView(b));
  }
  return out;
}

// blockView renders a block that is not a tool call: words as markdown,
// thinking collapsed, a compaction as a divider with its summary a click
// away, other injected text collapsed.
function blockView(b) {
  const side = b.sidechain ? " (subagent)" : "";
  const anchor = { line: b.line, index: b.index };
  const copy = (what) => copyButton(b.content, { label: "Copy", class: "copy-block", title: "copy " + what });
  switch (b.kind) {
    case "user-text": {
      const cmd = slashCommand(b.content);
      if (cmd && cmd.command) return el("div", { class: "block user", dataset: anchor }, el("div", { class: "who" }, "User" + side, copy("the prompt as stored")),
        el("div", { class: "text" }, el("code", { class: "slash" }, cmd.command), cmd.args ? [" ", clamped(cmd.args, markdown)] : ""));
      return el("div", { class: "block user", dataset: anchor }, el("div", { class: "who" }, "User" + side, copy("the prompt")), el("div", { class: "text" }, clamped(b.content, markdown)), imagesView(b));
    }
    case "assistant-text":
      return el("div", { class: "block assistant", dataset: anchor }, side ? el("div", { class: "who" }, "Assistant" + side) : "", el("div", { class: "text" }, copy("the answer"), clamped(b.content, markdown)));
    case "thinking":
      return el("details", { class: "block thinking think", dataset: anchor }, el("summary", {}, `thinking${side} · ${human(b.content.length)} chars`), el("div", { class: "text" }, copy("the thinking"), clamped(b.content, markdown)));
    default: {
      if (isCompactionBoundary(b)) return compactionView(b);
      if (isCompactionSummary(b)) return el("details", { class: "block compaction-summary", dataset: anchor }, el("summary", {}, "the summary the client wrote when it compacted · " + human(b.content.length) + " chars"), el("div", { class: "text" }, copy("the summary"), clamped(b.content, markdown)));
      const cmd = slashCommand(b.content);
      const head = cmd ? (cmd.command ? (cmd.command + " " + cmd.args).trim() : "output: " + stripAnsi(cmd.stdout)) : stripAnsi(b.content);
      const shown = !cmd ? b.content : cmd.command ? (cmd.command + " " + cmd.args).trim() : cmd.stdout;
      return el("details", { class: "block meta", dataset: anchor }, el("summary", {}, `${b.role} ${b.kind}${side}: ${head.replace(/\s+/g, " ").slice(0, 80)}`),
        copy("the text as stored"), clamped(shown, ansi));
    }
  }
}

// compactionView is the divider where the client compacted its context:
// what triggered it and how large the context was, when the server knows.
function compactionView(b) {
  const m = b.content.match(/\((\w+)(?:, (\d+) tokens)?\)\s*$/) || [];
  const figures = [m[1], m[2] ? human(Number(m[2])) + " tokens" : ""].filter(Boolean).join(", ");
  return el("div", { class: "compaction", dataset: { line: b.line, index: b.index }, role: "separator" },
    el("span", { title: b.content + ": what the client loads from here on starts with the summary below" }, "Context compacted" + (figures ? ` (${figures})` : "")));
}

// ---- images ----

// imageLabel matches how the reader names an image where its bytes cannot
// go: "[image]", "[image: image/png, 34.2 KB]".
const imageLabel = /\[image(?:: [^\]\n]*)?\]/g;

// numberImages gives each user block that names images (a prompt's, a
// tool result's) their numbers within its line, b.images: the reader
// names a line's images in its blocks in the line's order, and the server
// serves a line's n'th image.
function numberImages(blocks) {
  const seen = new Map();
  for (const b of blocks) {
    if (b.role !== "user" || typeof b.content !== "string") continue;
    const k = (b.content.match(imageLabel) || []).length;
    if (!k) continue;
    const key = b.session_id + "\n" + b.line;
    const from = seen.get(key) || 0;
    b.images = Array.from({ length: k }, (_, i) => from + i);
    seen.set(key, from + k);
  }
}

// imagesView shows a block's images as thumbnails, each a link to the
// image that opens it full size in a dialog. One the server does not
// serve (not inline, too large, a redacting viewer) leaves its name alone.
function imagesView(b) {
  if (!b.images || !b.images.length) return "";
  return el("div", { class: "images" }, b.images.map((n) => {
    const src = `/api/sessions/${encodeURIComponent(b.session_id)}/lines/${b.line}/images/${n}`;
    const alt = `image ${n + 1} of line ${b.line}`;
    const a = el("a", { class: "thumb", href: src, target: "_blank", rel: "noopener", title: "open full size" },
      el("img", { src, alt, loading: "lazy", onerror: () => a.remove() }));
    a.addEventListener("click", (e) => {
      if (e.button !== 0 || e.ctrlKey || e.metaKey || e.shiftKey) return;
      e.preventDefault();
      e.stopPropagation();
      openImage(src, alt);
    });
    return a;
  }));
}

// openImage shows an image full size in a modal dialog, closed by a
// click or Escape.
function openImage(src, alt) {
  const d = el("dialog", { class: "image-full", "aria-label": alt }, el("img", { src, alt }));
  d.addEventListener("click", () => d.close());
  d.addEventListener("close", () => d.remove());
  document.body.append(d);
  d.showModal();
}

// ---- tool calls ----

// callView renders a call and its result as one collapsed line: the tool,
// its description, its key argument, its status and the result's size.
function callView(use, result, info) {
  const tool = (use && use.tool_name) || (result && result.tool_name) || "tool";
  const input = use ? toolInput(use.content) : {};
  const status = !result ? el("span", { class: "status-pending", title: "no result in this round" }, "…")
    : result.is_error ? el("span", { class: "status-err" }, "✗ error") : el("span", { class: "status-ok" }, "✓");
  const arg = stripAnsi((info && info.arg) || "");
  const desc = typeof input.description === "string" && input.description !== arg ? input.description : "";
  const size = result ? `${human(result.content.length)} chars` : "";
  const side = (use || result).sidechain ? el("span", { class: "badge subagent" }, "subagent") : "";
  const summary = el("summary", {}, el("span", { class: "tool" }, tool), side,
    desc ? el("span", { class: "desc" }, desc) : "", arg ? el("code", { class: "arg" }, arg) : "", status, el("span", { class: "size muted" }, size));
  const d = el("details", { class: "block call" + (result && result.is_error ? " error" : ""), dataset: { tool, line: (use || result).line, index: (use || result).index } }, summary);
  // What a find looks through before the call is opened: its input's
  // values (as the search index holds them) and its result.
  d.callText = () => [tool, use ? inputValues(input).join("\n") : "", result ? result.content : ""].join("\n");
  let filled = false;
  // fill renders the call's body, once: on opening, or when a find needs
  // to mark words in it. showRaw shows the call as stored, or rendered.
  d.fill = () => {
    if (filled) return;
    filled = true;
    const stored = use ? (input.__text !== undefined ? input.__text : JSON.stringify(input, null, 2)) : "";
    const rich = el("div", { class: "rich" }, richView(tool, input, use, result));
    const raw = el("div", { class: "raw", hidden: true },
      use ? clamped(stored || use.content, (t) => el("pre", {}, t)) : "",
      result ? clamped(result.content, (t) => el("pre", {}, t)) : "");
    const btn = el("button", { class: "raw-toggle", title: "the call's input and result as stored" }, "Raw");
    d.showRaw = (on) => { raw.hidden = !on; rich.hidden = on; btn.textContent = on ? "Rendered" : "Raw"; };
    btn.addEventListener("click", () => d.showRaw(raw.hidden));
    const copies = el("span", { class: "call-copies" },
      use ? copyButton(use.content, { label: "Copy input", class: "copy-input", title: "copy the call's input as stored" }) : "",
      result ? copyButton(result.content, { label: "Copy output", class: "copy-output", title: "copy the result as stored" }) : "");
    d.append(el("div", { class: "call-body" }, el("div", { class: "call-tools" }, copies, btn), rich, raw, result ? imagesView(result) : ""));
  };
  d.addEventListener("toggle", () => { if (d.open) d.fill(); });
  return d;
}

// inputValues lists the strings of a call's input, nested ones included,
// without its keys: what the search index holds of it (cairn.IndexText).
function inputValues(v, out = []) {
  if (typeof v === "string") out.push(v);
  else if (typeof v === "number" || typeof v === "boolean") out.push(String(v));
  else if (v && typeof v === "object") for (const x of Object.values(v)) inputValues(x, out);
  return out;
}

// toolInput reads a call's input: JSON as most tools send it, else the
// text itself (Codex's apply_patch sends the patch), as {__text}.
function toolInput(content) {
  const v = parseJSON(content);
  if (v && typeof v === "object" && !Array.isArray(v)) return v;
  return { __text: String(content || "") };
}

// toolKind names what a call does, whichever harness made it: Claude
// Code's, Codex's, Gemini CLI's and opencode's names of the same tools.
function toolKind(tool) {
  switch (tool) {
    case "Bash": case "exec_command": case "shell": case "local_shell": case "container.exec": case "shell_command": case "run_shell_command": case "bash":
      return "shell";
    case "Edit": case "replace": case "edit": return "edit";
    case "MultiEdit": return "multiedit";
    case "Write": case "write_file": case "write": return "write";
    case "Read": case "read_file": case "read": case "view": return "read";
    case "apply_patch": return "patch";
    case "TodoWrite": case "todowrite": case "update_plan": case "write_todos": return "todo";
    case "Task": case "Agent": case "task": return "agent";
    case "Grep": case "Glob": case "grep": case "glob": case "search_file_content": case "list_directory": case "ls": return "search";
  }
  return "";
}

// shellCommand is the command line of a shell call: a string, or an argv
// whose "bash -lc SCRIPT" form shows as the script.
function shellCommand(input) {
  const c = input.command !== undefined ? input.command : input.cmd;
  if (Array.isArray(c)) {
    if (c.length === 3 && /^(ba|z)?sh$/.test(String(c[0]).split("/").pop()) && /^-l?c$/.test(c[1])) return String(c[2]);
    return c.join(" ");
  }
  return typeof c === "string" ? c : "";
}

// richView renders a call by what its tool does.
function richView(tool, input, use, result) {
  const out = result ? result.content : "";
  const term = (text, cls) => clamped(text, (t) => { const p = ansi(t); if (cls) p.classList.add(cls); return p; });
  const resultPre = () => result ? term(out, result.is_error ? "err" : "") : el("p", { class: "muted" }, "No result in this round.");
  const path = input.file_path || input.filePath || input.notebook_path || input.absolute_path || input.path || "";
  const failed = () => result && result.is_error ? resultPre() : "";
  // A call whose result names the subagent it ran is an agent call,
  // whatever the harness names it (Gemini CLI names it by the agent).
  switch (result && result.agent_id ? "agent" : toolKind(tool)) {
    case "shell":
      return [el("pre", { class: "cmd" }, "$ " + shellCommand(input)), input.workdir ? el("div", { class: "path mono" }, "in " + input.workdir) : "", resultPre()];
    case "edit":
      return [el("div", { class: "path mono" }, path, input.replace_all || input.replaceAll ? " (every occurrence)" : ""), failed(),
        recordedPatch(tool, [diffView(input.old_string ?? input.oldString, input.new_string ?? input.newString, result)], result)];
    case "multiedit":
      return [el("div", { class: "path mono" }, path), failed(), recordedPatch(tool, (input.edits || []).map((e) => diffView(e.old_string, e.new_string, result)), result)];
    case "write": {
      const text = input.content || "";
      return [el("div", { class: "path mono" }, path, ` · ${plural(text.split("\n").length, "line")}`), writtenDiff(path, text, clamped(text, (t) => codeBlock(t, langOf(path))), use, result), failed()];
    }
    case "read": {
      if (!result || result.is_error) return [el("div", { class: "path mono" }, path), resultPre()];
      const r = readOutput(out);
      // A saved terminal output keeps its colours, not its escapes.
      const view = hasAnsi(r.code) ? term(r.code, "") : clamped(r.code, (t) => codeBlock(t, langOf(path)));
      return [el("div", { class: "path mono" }, path, r.first ? ` from line ${r.first}` : ""), view];
    }
    case "patch": {
      const patch = input.__text !== undefined ? input.__text : input.input || input.patch || "";
      return [clamped(patch, patchView), resultPre()];
    }
    case "todo": {
      const items = input.todos || input.plan || [];
      return [input.explanation ? el("p", {}, input.explanation) : "", el("ul", { class: "todos" }, items.map((t) => {
        const st = t.status || "";
        const done = st === "completed", now = st === "in_progress";
        return el("li", { class: "todo " + st }, done ? "☑ " : now ? "◐ " : "☐ ", t.content || t.activeForm || t.step || t.description || "");
      }))];
    }
    case "agent": {
      return [input.subagent_type ? el("span", { class: "badge subagent" }, input.subagent_type) : "", subagentView(result),
        input.prompt ? el("details", { class: "think" }, el("summary", {}, "prompt"), clamped(input.prompt, markdown))
          : use ? el("details", { class: "think" }, el("summary", {}, "input"), el("pre", { class: "input" }, input.__text !== undefined ? input.__text : JSON.stringify(input, null, 2))) : "",
        result ? el("div", { class: "text" }, clamped(out, markdown)) : ""];
    }
    case "search":
      return [el("div", { class: "mono" }, input.pattern || input.query || "", path ? " in " + path : "", input.glob ? " (" + input.glob + ")" : ""), resultPre()];
    default:
      return [use ? el("pre", { class: "input" }, input.__text !== undefined ? input.__text : JSON.stringify(input, null, 2)) : "", resultPre()];
  }
}
