// cairn's engagement viewer: a small page over the JSON API, no build step.
// Every string from the store reaches the page through textContent; the one
// exception is a search snippet, which the server escapes before marking.
"use strict";

const main = document.getElementById("main");

// api calls the JSON API. Requests that change the store carry the
// X-Cairn header the server requires of them.
async function api(method, path, body) {
  const opts = { method, headers: {}, credentials: "same-origin" };
  if (method !== "GET") {
    opts.headers["X-Cairn"] = "1";
    opts.headers["Content-Type"] = "application/json";
    opts.body = JSON.stringify(body || {});
  }
  const resp = await fetch(path, opts);
  const data = await resp.json().catch(() => ({ error: resp.statusText }));
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

// el builds an element: el("a", {href: "#"}, "text", child…).
function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(e.dataset, v);
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function toast(msg, bad) {
  const t = document.getElementById("toast");
  t.textContent = msg;
  t.className = bad ? "bad" : "";
  t.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (t.hidden = true), bad ? 8000 : 4000);
}

// short names a session in a few characters: its uuid's head and tail, as
// sessions of one project often share a prefix.
const short = (id) => (id && id.length > 14 ? id.slice(0, 8) + "…" + id.slice(-4) : id || "");
const when = (t) => (t && !t.startsWith("0001") ? t.replace("T", " ").slice(0, 16) : "");
const sessionLink = (id, label) => el("a", { href: "#/session/" + encodeURIComponent(id) }, label || short(id));

function lineageBadges(s) {
  const out = [];
  if (s.lineage && s.lineage !== "import") out.push(el("span", { class: "badge " + s.lineage }, s.lineage));
  if (s.operation) out.push(el("span", { class: "badge surgery" }, s.operation));
  return out;
}

// Routes are hashes: #/, #/session/ID, #/search?q=…, #/matrix, #/frames.
// A page still loading when the next one opens must not report its
// errors on the new one: each route has a generation.
let generation = 0;
function route() {
  const gen = ++generation;
  const hash = location.hash.slice(1) || "/";
  const [path, query] = hash.split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  const page = parts[0] || "sessions";
  for (const a of document.querySelectorAll("nav a")) a.classList.toggle("active", a.dataset.nav === page || (page === "session" && a.dataset.nav === "sessions"));
  main.replaceChildren();
  const pages = { sessions: sessionsPage, session: sessionPage, search: searchPage, matrix: matrixPage, frames: framesPage };
  const fn = pages[page];
  if (!fn) return main.append(el("p", { class: "empty" }, "No such page."));
  fn(params, decodeURIComponent(parts[1] || "")).catch((err) => { if (gen === generation) main.append(el("p", { class: "error" }, err.message)); });
}
window.addEventListener("hashchange", route);
document.getElementById("global-search").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = e.target.q.value.trim();
  if (q) location.hash = "#/search?q=" + encodeURIComponent(q);
});

// ---- sessions ----

async function sessionsPage(params) {
  const form = el("form", { class: "filters", id: "session-filters" },
    el("input", { name: "project", placeholder: "project folder (prefix/ or *)", value: params.get("project") || "" }),
    el("label", {}, "since ", el("input", { name: "since", type: "date", value: params.get("since") || "" })),
    el("label", {}, el("input", { name: "subagents", type: "checkbox", checked: params.get("subagents") === "true" }), " subagents"),
    el("button", { type: "submit" }, "Filter"),
    el("span", { class: "muted" }, "or search their text with the box above"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    if (form.project.value) p.set("project", form.project.value);
    if (form.since.value) p.set("since", form.since.value);
    if (form.subagents.checked) p.set("subagents", "true");
    location.hash = "#/?" + p;
  });
  main.append(el("h1", {}, "Sessions"), form);
  const offset = Number(params.get("offset") || 0);
  const q = new URLSearchParams(params);
  q.set("offset", offset);
  q.set("limit", 50);
  const data = await api("GET", "/api/sessions?" + q);
  if (data.total === 0) {
    main.append(el("p", { class: "empty" }, "No sessions. Import some with: cairn import"));
    return;
  }
  const rows = data.sessions.map((s) =>
    el("tr", { class: "session-row" },
      el("td", { class: "mono" }, sessionLink(s.id)),
      el("td", {}, s.title || el("span", { class: "muted" }, "(untitled)")),
      el("td", { class: "mono" }, s.project || ""),
      el("td", {}, String(s.rounds)),
      el("td", {}, when(s.ended_at)),
      el("td", {}, lineageBadges(s), s.parent ? ["from ", sessionLink(s.parent)] : "")));
  main.append(el("table", { id: "sessions" },
    el("thead", {}, el("tr", {}, ["session", "title", "project", "rounds", "ended", "lineage"].map((h) => el("th", {}, h)))),
    el("tbody", {}, rows)));
  const nav = el("p", { class: "muted" }, `${offset + 1}–${offset + data.sessions.length} of ${data.total} `);
  const page = (o) => { const p = new URLSearchParams(params); p.set("offset", o); return "#/?" + p; };
  if (offset > 0) nav.append(el("a", { href: page(Math.max(0, offset - 50)) }, "← newer"), " ");
  if (offset + data.sessions.length < data.total) nav.append(el("a", { href: page(offset + 50) }, "older →"));
  main.append(nav);
}

// ---- one session ----

// state of the open session page: the loaded rounds and the selection.
let view = null;

async function sessionPage(params, id) {
  const data = await api("GET", "/api/sessions/" + encodeURIComponent(id));
  const s = data.session;
  view = { id: s.id, session: s, rounds: [], selected: new Set(), anchor: null, next: 0, loading: false, fidelity: params.get("fidelity") || "full" };
  main.append(el("h1", {}, s.title || s.id));
  main.append(el("div", { class: "meta" },
    el("span", { class: "mono" }, s.id), s.project ? el("span", { class: "mono" }, s.project) : "",
    el("span", {}, `${s.rounds} rounds`), el("span", {}, `${when(s.started_at)} – ${when(s.ended_at)}`),
    el("span", {}, s.agent)));
  const lin = el("div", { class: "lineage", id: "lineage" }, lineageBadges(s));
  if (s.parents && s.parents.length > 1) {
    lin.append("parents ");
    s.parents.forEach((p, i) => lin.append(i ? " + " : "", sessionLink(p)));
    lin.append(" ");
  } else if (s.parent) {
    lin.append("parent ", data.parent ? sessionLink(s.parent, short(s.parent) + " " + (data.parent.title || "")) : el("span", { class: "mono" }, short(s.parent)), s.parent_round ? ` round ${s.parent_round}` : "", " ");
  }
  if (data.children.length) {
    lin.append(`children (${data.children.length}): `);
    data.children.forEach((c, i) => lin.append(i ? ", " : "", sessionLink(c.id, c.agent_id ? "agent " + c.agent_id.slice(0, 8) : short(c.id)), " ", ...lineageBadges(c)));
  }
  main.append(lin, toolbar(), el("div", { id: "results" }), suggestPanel(), el("div", { class: "timeline", id: "timeline" }), el("div", { class: "more", id: "more" }));
  await loadMore();
  const observer = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) loadMore(); });
  observer.observe(document.getElementById("more"));
  const want = params.get("round");
  if (want !== null) {
    while (view.next >= 0 && !view.rounds.some((r) => r.seq === Number(want)) && view.next <= Number(want)) await loadMore();
    const row = document.querySelector(`.round[data-seq="${Number(want)}"]`);
    if (row) { row.scrollIntoView({ block: "center" }); expand(row, true); }
  }
}

// loadMore appends the next page of rounds to the timeline.
async function loadMore() {
  const v = view;
  if (!v || v.loading || v.next < 0) return;
  v.loading = true;
  const more = document.getElementById("more");
  more.textContent = "Loading…";
  try {
    const data = await api("GET", `/api/sessions/${encodeURIComponent(v.id)}/rounds?from=${v.next}&limit=200`);
    if (v !== view) return;
    const tl = document.getElementById("timeline");
    const frag = document.createDocumentFragment();
    for (const r of data.rounds) { v.rounds.push(r); frag.append(roundRow(r)); }
    tl.append(frag);
    v.next = data.next;
    more.textContent = v.next < 0 ? `${v.rounds.length} rounds` : `${v.rounds.length} rounds loaded; scroll for more`;
  } finally {
    v.loading = false;
  }
}

function roundRow(r) {
  const row = el("div", { class: "round", dataset: { seq: r.seq } });
  const toggle = el("button", { class: "toggle", title: "show the full round", "aria-label": "expand round " + r.seq }, "▸");
  toggle.addEventListener("click", (e) => { e.stopPropagation(); expand(row); });
  const tags = [];
  if (r.engagement) tags.push(el("span", { class: "badge eng" }, r.engagement));
  if (r.frame) tags.push(el("span", { class: "badge frame" }, r.frame));
  const line = el("div", { class: "line" }, toggle,
    el("span", { class: "seq" }, String(r.seq).padStart(3, "0")),
    el("span", { class: "muted mono" }, when(r.started_at)),
    el("span", { class: "index", title: r.index }, r.index || el("span", { class: "muted" }, r.roles)),
    el("span", { class: "tags" }, tags));
  line.addEventListener("click", (e) => select(r.seq, e));
  row.append(line);
  return row;
}

// select handles a click on a round: alone, shift extends from the last
// click, ctrl/cmd toggles.
function select(seq, e) {
  const v = view;
  if (e.shiftKey && v.anchor !== null) {
    const [lo, hi] = [Math.min(v.anchor, seq), Math.max(v.anchor, seq)];
    if (!e.ctrlKey && !e.metaKey) v.selected.clear();
    for (const r of v.rounds) if (r.seq >= lo && r.seq <= hi) v.selected.add(r.seq);
  } else if (e.ctrlKey || e.metaKey) {
    v.selected.has(seq) ? v.selected.delete(seq) : v.selected.add(seq);
    v.anchor = seq;
  } else {
    const only = v.selected.size === 1 && v.selected.has(seq);
    v.selected.clear();
    if (!only) v.selected.add(seq);
    v.anchor = seq;
  }
  for (const row of document.querySelectorAll(".round")) row.classList.toggle("selected", v.selected.has(Number(row.dataset.seq)));
  updateSelection();
}

// ranges writes sorted seqs as "3,5-9".
function ranges(seqs) {
  const s = [...seqs].sort((a, b) => a - b);
  const out = [];
  for (let i = 0; i < s.length; i++) {
    let j = i;
    while (j + 1 < s.length && s[j + 1] === s[j] + 1) j++;
    out.push(i === j ? String(s[i]) : `${s[i]}-${s[j]}`);
    i = j;
  }
  return out.join(",");
}

function updateSelection() {
  const n = view.selected.size;
  document.getElementById("selection").textContent = n ? `${n} selected: ${ranges(view.selected)}` : "click a round; shift-click selects a range";
  for (const b of document.querySelectorAll("[data-needs-selection]")) b.disabled = n === 0;
}

async function expand(row, open) {
  const body = row.querySelector(".body");
  const toggle = row.querySelector(".toggle");
  if (body && !open) { body.remove(); toggle.textContent = "▸"; return; }
  if (body) body.remove();
  toggle.textContent = "▾";
  const b = el("div", { class: "body" }, el("span", { class: "muted" }, "Loading…"));
  row.append(b);
  try {
    const data = await api("GET", `/api/sessions/${encodeURIComponent(view.id)}/rounds/${row.dataset.seq}?fidelity=${encodeURIComponent(view.fidelity)}`);
    b.replaceChildren(...data.round.blocks.map(blockView));
    if (!data.round.blocks.length) b.append(el("span", { class: "muted" }, "(no blocks)"));
  } catch (err) {
    b.replaceChildren(el("span", { class: "error" }, err.message));
  }
}

// blockView renders one block: text plainly, thinking and tool cycles as
// collapsible details.
function blockView(b) {
  const side = b.sidechain ? " (subagent)" : "";
  switch (b.kind) {
    case "user-text":
      return el("div", { class: "block user" }, el("div", { class: "who" }, "User" + side), el("div", { class: "text" }, b.content));
    case "assistant-text":
      return el("div", { class: "block assistant" }, el("div", { class: "who" }, "Assistant" + side), el("div", { class: "text" }, b.content));
    case "thinking":
      return el("details", { class: "block thinking" }, el("summary", {}, `thinking${side} · ${b.content.length} chars`), el("pre", {}, b.content));
    case "tool-use":
      return el("details", { class: "block tool-use" }, el("summary", {}, `tool call${side}: ${b.tool_name || ""}`), el("pre", {}, b.content));
    case "tool-result":
      return el("details", { class: "block tool-result" + (b.is_error ? " error" : "") }, el("summary", {}, `${b.is_error ? "tool error" : "tool result"}${side}: ${b.tool_name || ""} · ${b.content.length} chars`), el("pre", {}, b.content));
    default:
      return el("details", { class: "block meta" }, el("summary", {}, `${b.role} ${b.kind}${side}`), el("pre", {}, b.content));
  }
}

function toolbar() {
  const fid = el("select", { id: "fidelity", title: "fidelity of expanded rounds and of exports" },
    ["full", "partial", "text"].map((f) => el("option", { value: f, selected: f === view.fidelity }, f)));
  fid.addEventListener("change", () => {
    view.fidelity = fid.value;
    for (const row of document.querySelectorAll(".round")) if (row.querySelector(".body")) expand(row, true);
  });
  const eng = el("input", { id: "engagement", placeholder: "engagement", size: 14 });
  const bar = el("div", { class: "toolbar" },
    el("span", { id: "selection", class: "muted" }),
    el("span", { class: "sep" }),
    eng,
    el("button", { id: "tag", "data-needs-selection": true, onclick: () => tagSelection(eng.value.trim()) }, "Tag"),
    el("button", { id: "untag", "data-needs-selection": true, onclick: untagSelection }, "Untag"),
    el("span", { class: "sep" }),
    el("button", { id: "split", "data-needs-selection": true, onclick: splitSelection, title: "the selection becomes one child, the rest another" }, "Split"),
    el("button", { id: "extract", onclick: () => extract(eng.value.trim()), title: "the engagement's rounds, in full, as a new session" }, "Extract engagement"),
    el("button", { id: "revive", onclick: revive, title: "compress older work, export a session to resume" }, "Revive"),
    el("span", { class: "sep" }),
    el("label", {}, "fidelity ", fid));
  queueMicrotask(updateSelection);
  return bar;
}

function retag(seqs, engagement) {
  for (const r of view.rounds) if (seqs.includes(r.seq)) r.engagement = engagement || undefined;
  for (const seq of seqs) {
    const row = document.querySelector(`.round[data-seq="${seq}"]`);
    if (!row) continue;
    const r = view.rounds.find((x) => x.seq === seq);
    const fresh = roundRow(r);
    fresh.classList.toggle("selected", view.selected.has(seq));
    const body = row.querySelector(".body");
    if (body) { fresh.append(body); fresh.querySelector(".toggle").textContent = "▾"; }
    row.replaceWith(fresh);
  }
}

async function tagSelection(engagement) {
  if (!engagement) return toast("Name the engagement first.", true);
  const seqs = [...view.selected];
  try {
    await api("POST", `/api/sessions/${encodeURIComponent(view.id)}/tags`, { engagement, rounds: seqs });
    retag(seqs, engagement);
    toast(`Tagged rounds ${ranges(seqs)} as ${engagement}.`);
  } catch (err) { toast(err.message, true); }
}

async function untagSelection() {
  const seqs = [...view.selected];
  try {
    await api("POST", `/api/sessions/${encodeURIComponent(view.id)}/untag`, { rounds: seqs });
    retag(seqs, "");
    toast(`Untagged rounds ${ranges(seqs)}.`);
  } catch (err) { toast(err.message, true); }
}

// showResults lists the sessions an action wrote, each with the command
// that resumes it.
function showResults(title, results) {
  const box = el("div", { class: "result", id: "action-result" }, el("strong", {}, title));
  for (const r of results) {
    box.append(el("div", { class: "exported" },
      el("div", {}, r.label ? el("span", { class: "badge eng" }, r.label) : "", sessionLink(r.id, r.id), ` · ${r.full} rounds in full · ${r.index} as index lines`),
      el("pre", { class: "resume" }, r.resume)));
  }
  document.getElementById("results").replaceChildren(box);
  box.scrollIntoView({ block: "nearest" });
}

async function surgery(action, body, title) {
  try {
    const data = await api("POST", `/api/sessions/${encodeURIComponent(view.id)}/${action}`, { ...body, fidelity: view.fidelity });
    showResults(title, data.results);
  } catch (err) { toast(err.message, true); }
}

function splitSelection() {
  const name = document.getElementById("engagement").value.trim() || "selection";
  return surgery("split", { map: `${ranges(view.selected)}=${name}`, rest: "rest" }, `Split into ${name} and rest`);
}

function extract(engagement) {
  if (!engagement) return toast("Name the engagement to extract.", true);
  return surgery("extract", { engagement }, `Extracted ${engagement}`);
}

function revive() {
  const first = [...view.selected].sort((a, b) => a - b)[0];
  return surgery("revive", first !== undefined ? { before: String(first) } : {}, first !== undefined ? `Revived, rounds before ${first} as the index` : "Revived");
}

function suggestPanel() {
  const words = el("input", { id: "suggest-words", placeholder: "words, e.g. console work", size: 24 });
  const list = el("div", { id: "suggestions" });
  const run = async () => {
    try {
      const data = await api("POST", "/api/tags/suggest", { words: words.value, session: view.id });
      list.replaceChildren();
      if (!data.candidates.length) return list.append(el("p", { class: "muted" }, "No candidates."));
      const boxes = data.candidates.map((c) => {
        const cb = el("input", { type: "checkbox", checked: true, dataset: { session: c.hit.session_id, seq: c.hit.round } });
        const snippet = el("span", { class: "snippet" });
        snippet.innerHTML = c.hit.snippet_html; // escaped by the server, then marked
        return el("div", { class: "hit candidate" }, el("label", {}, cb, ` round ${c.hit.round} · ${c.matched} word${c.matched === 1 ? "" : "s"} · `), snippet);
      });
      const as = el("input", { id: "suggest-as", value: data.engagement, size: 16 });
      const confirm = el("button", { id: "suggest-confirm", class: "primary" }, "Tag checked");
      confirm.addEventListener("click", async () => {
        const seqs = boxes.map((b) => b.querySelector("input")).filter((cb) => cb.checked).map((cb) => Number(cb.dataset.seq));
        if (!seqs.length) return;
        view.selected = new Set(seqs);
        await tagSelection(as.value.trim());
        list.replaceChildren();
      });
      list.append(...boxes, el("p", {}, "as ", as, " ", confirm));
    } catch (err) { toast(err.message, true); }
  };
  return el("details", { class: "panel", id: "suggest" }, el("summary", {}, "Suggest tags from search"),
    el("p", { class: "filters" }, words, el("button", { id: "suggest-run", onclick: run }, "Suggest")), list);
}

// ---- search ----

async function searchPage(params) {
  const q = params.get("q") || "";
  document.querySelector("#global-search input").value = q;
  main.append(el("h1", {}, "Search"));
  if (!q) return main.append(el("p", { class: "empty" }, "Type words in the search box: every word must match; a word ending in * matches a prefix. Only what users and agents wrote is searched."));
  const data = await api("GET", "/api/search?limit=50&q=" + encodeURIComponent(q));
  if (!data.hits.length) return main.append(el("p", { class: "empty" }, `No round matches “${q}”.`));
  const list = el("div", { class: "hits", id: "hits" });
  for (const h of data.hits) {
    const snippet = el("div", { class: "snippet" });
    snippet.innerHTML = h.snippet_html; // escaped by the server, then marked
    list.append(el("div", { class: "hit" },
      el("div", {}, el("a", { href: `#/session/${encodeURIComponent(h.session_id)}?round=${h.round}` }, `${short(h.session_id)} round ${h.round}`),
        el("span", { class: "muted" }, ` · ${when(h.timestamp)} · ${h.kind}`), h.project ? el("span", { class: "muted mono" }, " · " + h.project) : ""),
      snippet));
  }
  main.append(el("p", { class: "muted" }, `${data.hits.length} rounds`), list);
}

// ---- engagement × agent matrix ----

async function matrixPage() {
  main.append(el("h1", {}, "Engagement × agent"));
  const mx = await api("GET", "/api/matrix");
  if (!mx.rows || !mx.rows.length) return main.append(el("p", { class: "empty" }, "No tagged rounds yet: select rounds in a session and tag them."));
  main.append(el("p", { class: "muted" }, "Rows are engagement phases (cairn engagement phase NAME), columns agent roles; a subagent's rounds name the round whose call spawned it."));
  const cell = (rounds) => {
    if (!rounds || !rounds.length) return "·";
    const by = new Map();
    for (const r of rounds) { if (!by.has(r.session_id)) by.set(r.session_id, { seqs: [], spawn: r.spawned_by }); by.get(r.session_id).seqs.push(r.seq); }
    return [...by].map(([sid, { seqs, spawn }], i) => [i ? "; " : "",
      spawn ? [el("a", { href: `#/session/${encodeURIComponent(spawn.session_id)}?round=${spawn.round}`, title: spawn.description || spawn.tool || "spawned here" }, `${short(spawn.session_id)}:${spawn.round}`), "→"] : "",
      el("a", { href: `#/session/${encodeURIComponent(sid)}?round=${Math.min(...seqs)}` }, spawn ? (spawn.agent_id || "agent") : short(sid)), ":" + ranges(seqs)]);
  };
  const when = (row) => row.phase ? el("div", { class: "muted" }, row.started_at.slice(0, 16).replace("T", " ") + (row.ended_at ? " → " + row.ended_at.slice(0, 16).replace("T", " ") : " → now")) : "";
  main.append(el("table", { class: "matrix", id: "matrix" },
    el("thead", {}, el("tr", {}, el("th", {}, "engagement / phase"), mx.agents.map((a) => el("th", {}, a)))),
    el("tbody", {}, mx.rows.map((row) => el("tr", {}, el("th", {}, row.key, when(row)), mx.agents.map((a) => el("td", {}, cell(mx.cells[row.key][a]))))))));
}

// ---- frames ----

async function framesPage() {
  main.append(el("h1", {}, "Frames"));
  const data = await api("GET", "/api/frames");
  if (!data.frames.length) return main.append(el("p", { class: "empty" }, 'No frames yet. Start one with: cairn push "TITLE" --criteria "what done means"'));
  const tree = el("div", { class: "tree", id: "frames" });
  for (const f of data.frames) {
    const d = el("details", { class: "frame" },
      el("summary", {}, el("span", { class: "status " + f.status }, f.status.replace("_", " ")),
        el("span", { class: "mono" }, f.id), " ", f.title, f.owner ? el("span", { class: "muted" }, " @" + f.owner) : "",
        f.id === data.current ? el("span", { class: "current" }, " ← current") : ""),
      el("div", { class: "panel" },
        el("div", {}, el("strong", {}, "success criteria: "), f.success_criteria),
        f.results ? el("div", {}, el("strong", {}, "results: "), f.results) : "",
        f.depends_on ? el("div", {}, el("strong", {}, "after: "), f.depends_on.join(", ")) : "",
        f.artifacts ? el("div", {}, el("strong", {}, "artifacts: "), f.artifacts.join(", ")) : "",
        el("div", { class: "frame-rounds muted" })));
    d.style.marginLeft = `${f.depth * 1.4}rem`; // CSSOM: the CSP forbids style attributes
    d.addEventListener("toggle", async () => {
      const box = d.querySelector(".frame-rounds");
      if (!d.open || box.dataset.loaded) return;
      box.dataset.loaded = "1";
      const fr = await api("GET", "/api/frames/" + encodeURIComponent(f.id));
      box.append(fr.rounds.length ? "rounds: " : "no rounds recorded");
      fr.rounds.forEach((r, i) => {
        const sp = (fr.spawned_by || {})[r.session_id];
        box.append(i ? ", " : "", el("a", { href: `#/session/${encodeURIComponent(r.session_id)}?round=${r.seq}` }, sp ? `${sp.agent_id || "agent"}#${r.seq}` : `${short(r.session_id)}#${r.seq}`));
        if (sp) box.append(" (spawned by ", el("a", { href: `#/session/${encodeURIComponent(sp.session_id)}?round=${sp.round}`, title: sp.description || sp.tool || "" }, `${short(sp.session_id)}#${sp.round}`), ")");
      });
    });
    tree.append(d);
  }
  main.append(tree);
}

route();
