// The command palette: Ctrl+K (⌘K on a Mac) from anywhere, or the header's
// button. It jumps to a session, a round or a step, runs a search or an
// action (tag, extract, revive's preview, split's, the theme), matching
// what is typed fuzzily; arrows or Ctrl+N/P move, Enter runs, Esc closes.
"use strict";

const palette = { box: null, input: null, list: null, shown: [], at: 0, sessions: null, back: null };

// fuzzy matches query against text as a subsequence of its letters,
// returning the score (higher is better: runs of letters, word starts, an
// early start) and the matched positions, or null.
function fuzzy(query, text) {
  const q = query.toLowerCase().replace(/\s+/g, ""), t = text.toLowerCase();
  if (!q) return { score: 0, at: [] };
  const at = [];
  let score = 0, j = 0, prev = -2;
  for (let i = 0; i < t.length && j < q.length; i++) {
    if (t[i] !== q[j]) continue;
    // Prefer a word start for this letter when one comes soon.
    if (i !== prev + 1 && i > 0 && /[\p{L}\p{N}]/u.test(t[i - 1])) {
      const k = t.slice(i, i + 24).search(new RegExp(`(?<![\\p{L}\\p{N}])${q[j].replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "u"));
      if (k > 0) i += k;
    }
    const start = i === 0 || !/[\p{L}\p{N}]/u.test(t[i - 1]);
    score += 1 + (i === prev + 1 ? 4 : 0) + (start ? 3 : 0);
    if (prev >= 0 && i !== prev + 1) score -= Math.min(3, (i - prev) / 8);
    at.push(i);
    prev = i;
    j++;
  }
  if (j < q.length) return null;
  return { score: score - at[0] / 50 - t.length / 1000, at };
}

// marked renders text with the letters at positions at in bold.
function marked(text, at) {
  const out = [];
  const set = new Set(at);
  let run = "", bold = false;
  const flush = () => { if (run) out.push(bold ? el("b", {}, run) : run); run = ""; };
  for (let i = 0; i < text.length; i++) {
    if (set.has(i) !== bold) { flush(); bold = set.has(i); }
    run += text[i];
  }
  flush();
  return out;
}

// paletteItems lists what the palette offers for query q: what the page
// holds (steps of the opened rounds, the session's rounds, actions) and
// the stored sessions, each {group, label, detail, run}.
function paletteItems(q) {
  const items = [];
  const add = (group, label, detail, run) => items.push({ group, label, detail: detail || "", run });
  const onSession = view && document.getElementById("timeline");
  const words = q.trim();
  // "tag NAME", "extract NAME", "search WORDS": an action with its argument.
  const arg = words.match(/^(tag|extract|search|find)\s+(.+)$/i);
  if (arg && onSession && arg[1].toLowerCase() === "tag") items.push({ group: "Action", label: `Tag the selection as ${arg[2]}`, detail: view.selected.size ? ranges(view.selected) : "select rounds first", run: () => tagSelection(arg[2].trim()), exact: true });
  if (arg && onSession && arg[1].toLowerCase() === "extract") items.push({ group: "Action", label: `Extract ${arg[2]}: preview`, detail: "its rounds, in full, as a new session", run: () => extract(arg[2].trim()), exact: true });
  if (arg && onSession && arg[1].toLowerCase() === "find") items.push({ group: "Action", label: `Find “${arg[2]}” in the opened rounds`, run: () => { document.getElementById("find").value = arg[2]; find(arg[2]); }, exact: true });
  // "12" or "12.7": a round or a step by its number, loaded or not yet.
  const num = words.match(/^(?:round\s*|step\s*)?(\d+)(?:\.(\d+))?$/i);
  if (num && onSession) {
    const seq = Number(num[1]), step = num[2] ? Number(num[2]) : 0;
    items.push({ group: step ? "Step" : "Round", label: step ? `Go to step ${seq}.${step}` : `Go to round ${seq}`, detail: "", exact: true,
      run: async () => {
        const body = await openRound(seq);
        if (body && step && !goToStep(body, step)) toast(`No step ${seq}.${step} on the round's first page.`, true);
      } });
  }
  if (onSession) {
    add("Action", "Revive: preview", "compress older work into a session to resume", revive);
    if (view.selected.size) {
      add("Action", "Split the selection: preview", ranges(view.selected), splitSelection);
      add("Action", "Tag the selection…", ranges(view.selected) + " · or type: tag NAME", () => focusAfterKey(document.getElementById("engagement"), ""));
      add("Action", "Untag the selection", ranges(view.selected), untagSelection);
    }
    add("Action", "Extract an engagement…", "or type: extract NAME", () => focusAfterKey(document.getElementById("engagement"), ""));
    add("Action", "Expand all in the opened rounds", "", () => { for (const b of document.querySelectorAll(".round .body")) openAll(b, true); });
    add("Action", "Collapse all in the opened rounds", "", () => { for (const b of document.querySelectorAll(".round .body")) openAll(b, false); });
    add("Action", "Copy the session's id", view.id, () => navigator.clipboard.writeText(view.id).then(() => toast("Copied " + view.id), () => toast("The browser refused the clipboard.", true)));
    for (const sec of document.querySelectorAll("#timeline .step")) {
      const s = sec.stepInfo;
      if (s) add("Step", stepTitle(s), when(s.started_at), () => { const body = sec.closest(".body"); goToStep(body, s.seq); });
    }
    for (const r of view.rounds) {
      const prompt = r.user_preview ? promptText(r.user_preview) : "";
      add("Round", `Round ${r.seq}${prompt ? ": " + prompt : ""}`, [stripAnsi(r.index || ""), when(r.started_at)].filter(Boolean).join(" · "), () => openRound(r.seq));
    }
  }
  for (const [page, label] of [["#/", "Sessions"], ["#/search", "Search"], ["#/matrix", "Matrix"], ["#/frames", "Frames"]]) add("Go to", label, "", () => { location.hash = page; });
  for (const t of themes) add("Theme", `Theme: ${t}`, t === themeSetting() ? "in use" : "", () => setTheme(t));
  for (const s of palette.sessions || []) add("Session", titleOf(s), [s.agent, s.project, short(s.id), when(s.ended_at)].filter(Boolean).join(" · "), () => { location.hash = "#/session/" + encodeURIComponent(s.id); });
  if (!arg || !/^search$/i.test(arg[1])) {
    if (words) items.push({ group: "Search", label: `Search for “${words}”`, detail: "every session's text, tools and output", run: () => { location.hash = "#/search?q=" + encodeURIComponent(words); }, always: true });
  } else items.push({ group: "Search", label: `Search for “${arg[2]}”`, detail: "every session's text, tools and output", run: () => { location.hash = "#/search?q=" + encodeURIComponent(arg[2]); }, exact: true });
  return items;
}

// openRound opens round seq of the session page and goes to it, loading
// the timeline's pages up to it; returns the round's body, or null.
async function openRound(seq) {
  while (view.next >= 0 && view.next <= seq && !view.rounds.some((r) => r.seq === seq)) await loadMore();
  const row = document.querySelector(`.round[data-seq="${seq}"]`);
  if (!row) { toast(`No round ${seq} in this session.`, true); return null; }
  view.cursor = seq;
  showCursor();
  const body = row.querySelector(".body") || await expand(row, true);
  row.scrollIntoView({ block: "start" });
  return body;
}

// paletteRender lists the items matching the input, best first.
function paletteRender() {
  const q = palette.input.value;
  const found = [];
  for (const it of paletteItems(q)) {
    if (it.exact || it.always) { found.push({ it, score: it.exact ? 1e6 : -1e6, at: [] }); continue; }
    const m = fuzzy(q, it.group === "Go to" ? "go to " + it.label : it.label);
    const d = m ? null : q && it.detail ? fuzzy(q, it.detail) : null;
    if (m) found.push({ it, score: m.score, at: m.at });
    else if (d) found.push({ it, score: d.score - 5, at: [], detailAt: d.at });
  }
  found.sort((a, b) => b.score - a.score);
  const search = found.findIndex((f) => f.it.always);
  if (search >= 0 && found.length > 1) found.push(...found.splice(search, 1)); // after the matches, never first
  palette.shown = found.slice(0, 60);
  if (search >= 0 && !palette.shown.some((f) => f.it.always)) palette.shown.push(found[found.length - 1]);
  palette.at = 0;
  palette.list.replaceChildren(...palette.shown.map((f, i) => el("li", { id: "palette-item-" + i, role: "option", class: "palette-item", dataset: { group: f.it.group }, "aria-selected": String(i === 0), onmousedown: (e) => { e.preventDefault(); paletteRun(i); } },
    el("span", { class: "palette-group" }, f.it.group),
    el("span", { class: "palette-label" }, marked(f.it.label, f.at)),
    f.it.detail ? el("span", { class: "palette-detail muted" }, f.detailAt ? marked(f.it.detail, f.detailAt) : f.it.detail) : "")));
  if (!palette.shown.length) palette.list.append(el("li", { class: "palette-empty muted" }, "Nothing matches."));
  paletteMove(0);
}

// paletteMove puts the choice on item i (wrapping).
function paletteMove(i) {
  const n = palette.shown.length;
  if (!n) return palette.input.removeAttribute("aria-activedescendant");
  palette.at = ((i % n) + n) % n;
  for (const [j, li] of [...palette.list.children].entries()) li.setAttribute("aria-selected", String(j === palette.at));
  const cur = palette.list.children[palette.at];
  palette.input.setAttribute("aria-activedescendant", cur.id);
  cur.scrollIntoView({ block: "nearest" });
}

// paletteRun closes the palette and runs item i.
function paletteRun(i) {
  const f = palette.shown[i];
  if (!f) return;
  paletteClose(false);
  Promise.resolve().then(f.it.run).catch((err) => toast(err.message, true));
}

function paletteOpen() {
  if (!palette.box) {
    palette.input = el("input", { id: "palette-input", type: "text", role: "combobox", "aria-expanded": "true", "aria-controls": "palette-list", "aria-autocomplete": "list", autocomplete: "off", spellcheck: "false",
      placeholder: "Jump to a session, round or step; search; tag NAME, extract NAME, revive…" });
    palette.list = el("ul", { id: "palette-list", role: "listbox", "aria-label": "matches" });
    palette.box = el("div", { id: "palette", role: "dialog", "aria-modal": "true", "aria-label": "Command palette", hidden: true },
      el("div", { class: "palette-panel" }, palette.input, palette.list,
        el("div", { class: "palette-help muted" }, "↑ ↓ move · Enter run · Esc close · tag NAME · extract NAME · search WORDS · find WORDS")));
    palette.box.addEventListener("mousedown", (e) => { if (e.target === palette.box) paletteClose(true); });
    palette.input.addEventListener("input", paletteRender);
    palette.input.addEventListener("keydown", (e) => {
      const k = e.key;
      if (k === "ArrowDown" || (e.ctrlKey && k === "n")) { e.preventDefault(); paletteMove(palette.at + 1); }
      else if (k === "ArrowUp" || (e.ctrlKey && k === "p")) { e.preventDefault(); paletteMove(palette.at - 1); }
      else if (k === "PageDown") { e.preventDefault(); paletteMove(Math.min(palette.shown.length - 1, palette.at + 8)); }
      else if (k === "PageUp") { e.preventDefault(); paletteMove(Math.max(0, palette.at - 8)); }
      else if (k === "Enter") { e.preventDefault(); paletteRun(palette.at); }
      else if (k === "Escape") { e.preventDefault(); paletteClose(true); }
      else if (k === "Tab") e.preventDefault(); // the focus stays in the dialog
    });
    document.body.append(palette.box);
  }
  palette.back = document.activeElement;
  palette.box.hidden = false;
  palette.input.value = "";
  paletteRender();
  palette.input.focus();
  if (!palette.sessions) {
    api("GET", "/api/sessions?limit=500&subagents=true&sort=time&order=desc").then((data) => {
      palette.sessions = data.sessions;
      if (!palette.box.hidden) { const at = palette.at; paletteRender(); paletteMove(at); }
    }).catch((err) => toast(err.message, true));
  }
}

// paletteClose hides the palette; back returns the focus where it was.
function paletteClose(back) {
  palette.box.hidden = true;
  if (back && palette.back && palette.back.focus) palette.back.focus();
}

document.addEventListener("keydown", (e) => {
  if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
    e.preventDefault();
    e.stopPropagation();
    if (palette.box && !palette.box.hidden) paletteClose(true);
    else paletteOpen();
  }
}, true);
const paletteButton = document.getElementById("palette-open");
paletteButton.addEventListener("click", paletteOpen);
if (!/Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)) paletteButton.textContent = "Ctrl K";
// A new page's sessions may differ: ask again next time.
window.addEventListener("hashchange", () => { palette.sessions = null; });
