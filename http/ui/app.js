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
  let resp;
  try { resp = await fetch(path, opts); }
  catch { connectionLost(); throw offline(); }
  const data = await resp.json().catch(() => ({ error: resp.statusText }));
  if (!resp.ok) throw new Error(data.error || resp.statusText);
  return data;
}

// pageGet is a page's GET. The reader may have gone to another page by the
// time the answer arrives, and a page no longer shown must not draw on the
// one that is: its answer is then a failure, which route drops.
async function pageGet(path) {
  const gen = generation;
  const data = await api("GET", path);
  if (gen !== generation) throw new Error("this page is no longer shown");
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
// when writes a time in the reader's time zone (tzName names it).
const when = (t) => {
  if (!t || t.startsWith("0001")) return "";
  const d = new Date(t);
  const p = (n) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
};
function tzName() {
  const off = -new Date().getTimezoneOffset();
  const zone = Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  return (off === 0 ? "UTC" : `UTC${off > 0 ? "+" : "−"}${Math.floor(Math.abs(off) / 60)}${Math.abs(off) % 60 ? ":" + String(Math.abs(off) % 60).padStart(2, "0") : ""}`) + (zone && zone !== "UTC" ? ` (${zone})` : "");
}
// titleOf is a session's title as a reader wants it: a slash command as
// typed, no escapes; its id's head when it has none.
const titleOf = (s) => (s.title ? promptText(s.title) : "") || short(s.id);
const sessionLink = (id, label) => el("a", { href: "#/session/" + encodeURIComponent(id) }, label || short(id));

// runningBadge marks a session whose transcript grew in the last minutes,
// as cairn serve --watch imported it.
const runningBadge = () => el("span", { class: "badge running", title: "its transcript grew in the last two minutes (cairn serve --watch imports it as it grows)" }, "● running");

function lineageBadges(s) {
  const out = [];
  if (s.lineage === "subagent") out.push(agentBadge(s.agent_id, s.parent));
  else if (s.lineage && s.lineage !== "import") out.push(el("span", { class: "badge " + s.lineage }, s.lineage));
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
  // Keys like n and N work on the page a search leads to, not in the box;
  // the box holds the query of the search page and nothing elsewhere.
  const box = document.querySelector("#global-search input");
  if (page !== "search") { if (document.activeElement === box) box.blur(); box.value = ""; }
  main.replaceChildren();
  const pages = { sessions: sessionsPage, session: sessionPage, search: searchPage, matrix: matrixPage, frames: framesPage };
  const fn = pages[page];
  document.title = ({ sessions: "Sessions", search: params.get("q") ? `Search: ${params.get("q")}` : "Search", matrix: "Engagement × agent", frames: "Frames", session: "Session" }[page] || "No such page") + " · cairn";
  if (!fn) return main.append(el("p", { class: "empty" }, "No such page."));
  fn(params, decodeURIComponent(parts[1] || "")).catch((err) => { if (gen === generation) main.append(el("p", { class: "error" }, err.message)); });
}
window.addEventListener("hashchange", route);
// The skip link moves the focus past the header; its #main is not a page.
document.getElementById("skip").addEventListener("click", (e) => { e.preventDefault(); main.focus(); });

// announce tells a screen reader what a page found, once: the page itself
// is not a live region, so rendering it is not read out whole.
function announce(text) {
  const a = document.getElementById("announce");
  a.textContent = "";
  setTimeout(() => { a.textContent = text; }, 50);
}
new ResizeObserver(() => document.documentElement.style.setProperty("--header-h", document.querySelector("header").offsetHeight + "px")).observe(document.querySelector("header"));
document.getElementById("global-search").addEventListener("submit", (e) => {
  e.preventDefault();
  clearTimeout(typing);
  const q = e.target.q.value.trim();
  if (q) location.hash = "#/search?q=" + encodeURIComponent(q);
});
// Results as the reader types: once the typing pauses (SearchPause), the
// search page shows the words typed so far; it replaces its own address
// rather than add one a keystroke to the history.
const SearchPause = 300;
let typing = null;
document.querySelector("#global-search input").addEventListener("input", (e) => {
  clearTimeout(typing);
  typing = setTimeout(() => {
    const q = e.target.value.trim();
    if (q.length < 2) return;
    const hash = "#/search?q=" + encodeURIComponent(q);
    if (location.hash === hash) return;
    if (location.hash.startsWith("#/search")) { history.replaceState(history.state, "", hash); route(); }
    else location.hash = hash;
  }, SearchPause);
});

// ---- sessions ----

// sessionColumns are the sessions list's columns: those with a sort key
// sort on a click.
const sessionColumns = [
  ["session", ""], ["harness", ""], ["project", ""], ["rounds", "rounds"], ["tools", "tools"], ["tokens", "tokens"],
  ["duration", "duration"], ["ended", "time"], ["lineage", ""],
];

// shortPath shortens a path from the left to about max characters: its
// last folders are what tells projects apart.
function shortPath(p, max = 36) {
  if (!p || p.length <= max) return p || "";
  const parts = p.split("/");
  let out = parts.pop();
  while (parts.length > 1 && out.length + parts[parts.length - 1].length + 1 <= max - 2) out = parts.pop() + "/" + out;
  return out.length > max - 1 ? "…" + out.slice(out.length - (max - 1)) : "…/" + out;
}

// listHash is the sessions list's address with params changed (a value
// of null or "" removes one), from its first page.
function listHash(params, changes) {
  const p = new URLSearchParams(params);
  p.delete("offset");
  for (const [k, v] of Object.entries(changes)) v === null || v === "" ? p.delete(k) : p.set(k, v);
  return "#/?" + p;
}

async function sessionsPage(params) {
  const sort = params.get("sort") || "time", order = params.get("order") || "desc", grouped = params.get("group") === "project";
  // The sort as a field too: on a phone the column heads are not shown.
  const sortBy = el("select", { id: "session-sort", name: "sort", "aria-label": "sort by", title: "sort by" },
    sessionColumns.filter(([, key]) => key).map(([label, key]) => el("option", { value: key, selected: key === sort }, "by " + label)));
  sortBy.addEventListener("change", () => { location.hash = listHash(params, { sort: sortBy.value }); });
  const flip = el("button", { type: "button", id: "session-order", title: order === "desc" ? "largest or latest first; click for the other way" : "smallest or earliest first; click for the other way",
    onclick: () => { location.hash = listHash(params, { order: order === "desc" ? "asc" : "desc" }); } }, order === "desc" ? "▾" : "▴");
  const group = el("input", { id: "session-group", type: "checkbox", checked: grouped });
  group.addEventListener("change", () => { location.hash = listHash(params, { group: group.checked ? "project" : null }); });
  const form = el("form", { class: "filters", id: "session-filters" },
    el("input", { name: "in", placeholder: "project contains…", value: params.get("in") || "", "aria-label": "project contains" }),
    el("label", {}, "since ", el("input", { name: "since", type: "date", value: params.get("since") || "" })),
    el("label", { title: "subagents and surgery's children are listed under their parents; this also lists subagents whose parent is not stored" }, el("input", { name: "subagents", type: "checkbox", checked: params.get("subagents") === "true" }), " orphan subagents"),
    el("button", { type: "submit" }, "Filter"),
    el("span", { class: "list-order" }, sortBy, flip, el("label", { title: "each project's sessions together, under its folder" }, group, " group by project")),
    el("span", { class: "muted hint" }, "or search their text with the box above"));
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const p = new URLSearchParams();
    if (form.in.value.trim()) p.set("in", form.in.value.trim());
    if (form.since.value) p.set("since", form.since.value);
    if (form.subagents.checked) p.set("subagents", "true");
    for (const k of ["sort", "order", "group"]) if (params.get(k)) p.set(k, params.get(k));
    location.hash = "#/?" + p;
  });
  main.append(el("h1", {}, "Sessions"), form);
  const offset = Number(params.get("offset") || 0);
  const q = new URLSearchParams(params);
  q.set("offset", offset);
  q.set("limit", 50);
  q.set("tree", "true");
  const data = await pageGet("/api/sessions?" + q);
  if (data.total === 0) {
    const filters = [];
    if (params.get("in")) filters.push(`whose project contains “${params.get("in")}”`);
    if (params.get("since")) filters.push(`since ${params.get("since")}`);
    main.append(filters.length
      ? el("p", { class: "empty", id: "no-sessions" }, `No session ${filters.join(" and ")}. `, el("a", { href: "#/" }, "Show them all"))
      : el("p", { class: "empty", id: "no-sessions" }, "No sessions yet. Import some with: cairn import"));
    return;
  }
  const sortLink = (label, key) => {
    if (!key) return label;
    const p = new URLSearchParams(params);
    p.delete("offset");
    p.set("sort", key);
    p.set("order", sort === key && order === "desc" ? "asc" : "desc");
    return el("a", { href: "#/?" + p, class: "sort" + (sort === key ? " on" : ""), title: "sort by " + label }, label, sort === key ? (order === "desc" ? " ▾" : " ▴") : "");
  };
  const rows = [];
  const add = (s, depth) => {
    const kids = s.children || [];
    const tr = el("tr", { class: "session-row" + (depth ? " child" : ""), dataset: { id: s.id, depth, project: s.project || "" } },
      el("td", { class: "title-cell" }, depth ? el("span", { class: "indent" }, "↳ ") : "",
        kids.length ? el("button", { class: "kids", title: "show the sessions that came from it", "aria-expanded": "false" }, `▸ ${kids.length}`) : "",
        s.running ? runningBadge() : "", lineageBadges(s), sessionLink(s.id, titleOf(s)), el("div", { class: "muted mono small" }, short(s.id))),
      el("td", { class: "muted nowrap" }, s.agent),
      el("td", { class: "mono small project", title: s.project || "" }, shortPath(s.project)),
      el("td", { class: "num", dataset: { unit: s.rounds === 1 ? " round" : " rounds" } }, String(s.rounds)),
      el("td", { class: "num", title: "tool calls", dataset: { unit: s.tool_calls === 1 ? " tool call" : " tool calls" } }, String(s.tool_calls || 0)),
      el("td", { class: "num", title: tokensTitle(s.usage) }, human(sessionTokens(s.usage))),
      el("td", { class: "num" }, duration(s.started_at, s.ended_at)),
      el("td", { class: "nowrap" }, when(s.ended_at)),
      el("td", {}, s.parent && !depth ? ["from ", sessionLink(s.parent)] : ""));
    rows.push(tr);
    const kidRows = [];
    for (const c of kids) { const before = rows.length; add(c, depth + 1); kidRows.push(...rows.slice(before)); }
    for (const r of kidRows) r.hidden = true;
    const btn = tr.querySelector(".kids");
    if (btn) btn.addEventListener("click", () => {
      const open = btn.getAttribute("aria-expanded") !== "true";
      btn.setAttribute("aria-expanded", String(open));
      btn.textContent = `${open ? "▾" : "▸"} ${kids.length}`;
      for (const r of kidRows) if (Number(r.dataset.depth) === depth + 1 || !open) r.hidden = !open;
    });
  };
  let project = null;
  for (const s of data.sessions) {
    if (grouped && (s.project || "") !== project) {
      project = s.project || "";
      const n = data.sessions.filter((x) => (x.project || "") === project).length;
      rows.push(el("tr", { class: "group-row", dataset: { project } },
        el("th", { colspan: sessionColumns.length }, el("span", { class: "mono" }, project || "(no project)"), el("span", { class: "muted" }, " · " + plural(n, "session")))));
    }
    add(s, 0);
  }
  main.append(el("table", { id: "sessions", class: grouped ? "grouped" : "" },
    el("thead", {}, el("tr", {}, sessionColumns.map(([h, key]) => el("th", { class: key ? "sortable" : "" }, sortLink(h, key))))),
    el("tbody", {}, rows)));
  const nav = el("p", { class: "muted" }, `${offset + 1}–${offset + data.sessions.length} of ${data.total} · times in ${tzName()} `);
  const page = (o) => { const p = new URLSearchParams(params); p.set("offset", o); return "#/?" + p; };
  if (offset > 0) nav.append(el("a", { href: page(Math.max(0, offset - 50)) }, "← previous"), " ");
  if (offset + data.sessions.length < data.total) nav.append(el("a", { href: page(offset + 50) }, "next →"));
  main.append(nav);
}

// sessionTokens is a session's tokens as the list sorts them: read (input
// and cache) and written.
const sessionTokens = (u) => u ? (u.input_tokens || 0) + (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0) + (u.output_tokens || 0) : 0;
const tokensTitle = (u) => u ? `${u.input_tokens} input, ${u.cache_read_input_tokens} cache read, ${u.cache_creation_input_tokens} cache written, ${u.output_tokens} output tokens` : "";

// ---- one session ----

// state of the open session page: the loaded rounds and the selection.
let view = null;

async function sessionPage(params, id) {
  const data = await pageGet("/api/sessions/" + encodeURIComponent(id));
  const s = data.session;
  view = { id: s.id, session: s, children: data.children, rounds: [], selected: new Set(), anchor: null, next: 0, loading: false, fidelity: params.get("fidelity") || "full", find: params.get("find") || "", cursor: null };
  showTitle();
  main.append(el("h1", {}, titleOf(s)));
  main.append(metaView(s, data.running));
  const lin = lineageView(data);
  main.append(lin, toolbar(), el("div", { id: "results" }), suggestPanel(), el("div", { class: "timeline", id: "timeline" }), el("div", { class: "more", id: "more" }));
  // A pi session is a tree: its branches left are drawn apart.
  if (s.agent === "pi") view.branches = new Map((await pageGet(`/api/sessions/${encodeURIComponent(s.id)}/branches`)).branches.map((b) => [b.round, b]));
  await loadMore();
  const observer = new IntersectionObserver((es) => { if (es.some((e) => e.isIntersecting)) loadMore(); });
  observer.observe(document.getElementById("more"));
  const want = params.get("round");
  const v = view;
  v.landing = want !== null;
  try { await land(params, want); } finally { v.landing = false; }
}

// land opens the round the address names and goes to its step, and to
// the words of a search in it.
async function land(params, want) {
  if (want !== null) {
    while (view.next >= 0 && !view.rounds.some((r) => r.seq === Number(want)) && view.next <= Number(want)) await loadMore();
    const row = /^\d+$/.test(want) ? document.querySelector(`.round[data-seq="${Number(want)}"]`) : null;
    if (!row) {
      // A link to a round the session does not have says so, rather
      // than leave the reader at its top wondering.
      const last = view.rounds.length ? view.rounds[view.rounds.length - 1].seq : -1;
      document.getElementById("results").replaceChildren(el("p", { class: "error", id: "no-round", role: "alert" },
        `No round ${want} in this session: ` + (last < 0 ? "it has no rounds." : `its rounds are 0–${last}.`)));
    }
    if (row) {
      row.scrollIntoView({ block: "start" });
      view.cursor = Number(want);
      view.where = { round: Number(want), step: Number(params.get("step")) || null };
      showTitle();
      const body = await expand(row, true);
      // Land on the step a search hit names, then on the match: the
      // words of the search marked in the round, the first in view.
      const step = body && params.get("step") ? body.querySelector(`.step[data-step="${Number(params.get("step"))}"]`) : null;
      if (body && params.get("step") && !goToStep(body, Number(params.get("step"))))
        document.getElementById("results").replaceChildren(el("p", { class: "error", id: "no-step", role: "alert" }, `No step ${want}.${params.get("step")} on the round's first page.`));
      if (body && params.get("find")) find(params.get("find"), step || body, params.get("near"));
    }
  }
}

// ---- where the reader is: the address and the tab's title ----

// setWhere puts the open session's round and step (the one at the top of
// the window) in the address, without a new history entry or a new
// render: a reload, or the address sent to someone, opens the same place.
function setWhere(round, step) {
  if (!view) return;
  view.where = { round, step };
  const p = new URLSearchParams();
  if (view.fidelity !== "full") p.set("fidelity", view.fidelity);
  if (round !== null && round !== undefined) p.set("round", round);
  if (step) p.set("step", step);
  const hash = "#/session/" + encodeURIComponent(view.id) + (p.toString() ? "?" + p : "");
  if (location.hash !== hash) history.replaceState(history.state, "", hash);
  showTitle();
}

// closedRound takes a round closed by the reader out of the address.
function closedRound(seq) {
  if (view && view.where && view.where.round === seq) setWhere(null, null);
}

// showTitle names the tab after the open session, and its round.
function showTitle() {
  if (!view) return;
  const w = view.where;
  document.title = titleOf(view.session) + (w && w.round !== null && w.round !== undefined ? ` · round ${w.round}${w.step ? "." + w.step : ""}` : "") + " · cairn";
}

// trackWhere notes the step at the top of the window, below the sticky
// bars, as the reader scrolls through an open round.
function trackWhere() {
  if (!view || !document.getElementById("timeline") || view.landing) return;
  for (const row of document.querySelectorAll("#timeline .round.open")) {
    const r = row.getBoundingClientRect();
    const top = stuckBottom(row.querySelector(".body") || row);
    if (r.bottom <= top || r.top >= innerHeight) continue;
    const steps = [...row.querySelectorAll(".step:not([hidden])")];
    let lo = 0, hi = steps.length;
    while (lo < hi) { const mid = (lo + hi) >> 1; if (steps[mid].getBoundingClientRect().bottom <= top + 16) lo = mid + 1; else hi = mid; }
    const step = lo < steps.length && steps[lo].getBoundingClientRect().top < innerHeight ? Number(steps[lo].dataset.step) : null;
    return setWhere(Number(row.dataset.seq), step);
  }
}
let whereTimer = null;
window.addEventListener("scroll", () => { clearTimeout(whereTimer); whereTimer = setTimeout(trackWhere, 150); }, { passive: true });

// metaView is the line under a session's title: id, project, rounds,
// times, duration, tokens, harness; running, when the watcher is
// importing it.
function metaView(s, running) {
  return el("div", { class: "meta", id: "session-meta" },
    el("span", { class: "mono" }, s.id), s.project ? el("span", { class: "mono" }, s.project) : "",
    el("span", { id: "session-rounds" }, plural(s.rounds, "round")), el("span", { title: "times in " + tzName() }, `${when(s.started_at)} – ${when(s.ended_at)} ${tzName().split(" ")[0]}`),
    el("span", {}, duration(s.started_at, s.ended_at)), el("span", { title: tokensTitle(s.usage) }, human(sessionTokens(s.usage)) + " tokens"),
    el("span", {}, s.agent), running ? runningBadge() : "");
}

// lineageView shows where a session came from and what came from it:
// children labelled by operation (or subagent) and engagement.
function lineageView(data) {
  const s = data.session;
  const lin = el("div", { class: "lineage", id: "lineage" }, lineageBadges(s));
  if (s.parents && s.parents.length > 1) {
    lin.append("parents ");
    s.parents.forEach((p, i) => lin.append(i ? " + " : "", sessionLink(p)));
    lin.append(" ");
  } else if (s.parent) {
    lin.append("parent ", data.parent ? sessionLink(s.parent, titleOf(data.parent)) : el("span", { class: "mono" }, short(s.parent)), s.parent_round ? ` round ${s.parent_round}` : "", " ");
  }
  if (data.children.length) {
    const list = el("ul", { class: "children", id: "children" });
    for (const c of data.children) {
      const label = c.lineage === "subagent" ? (c.title ? promptText(c.title) : "agent " + (c.agent_id || "").slice(0, 8)) : `${c.operation || "child"}${c.engagements ? " · " + c.engagements.join(", ") : ""}`;
      list.append(el("li", { dataset: { id: c.id } }, lineageBadges(c), (c.engagements || []).map((e) => el("span", { class: "badge eng" }, e)),
        sessionLink(c.id, label), el("span", { class: "muted" }, ` · ${plural(c.rounds, "round")} · ${when(c.started_at)} · `), el("span", { class: "mono muted" }, short(c.id))));
    }
    lin.append(el("details", { open: data.children.length <= 6 }, el("summary", {}, `children (${data.children.length})`), list));
  }
  return lin;
}

// refreshLineage reloads the open session's lineage after an action.
async function refreshLineage() {
  showLineage(await api("GET", "/api/sessions/" + encodeURIComponent(view.id)));
}

// showLineage draws the open session's lineage again from data (GET
// /api/sessions/{id}), its list of children left open or closed as the
// reader left it, and reports whether its children changed: a subagent
// that appeared or grew, a child surgery wrote.
function showLineage(data) {
  const kin = (cs) => JSON.stringify(cs.map((c) => [c.id, c.rounds, c.title, c.operation, c.engagements]));
  if (kin(data.children) === kin(view.children || [])) return false;
  view.children = data.children;
  const old = document.getElementById("lineage"), fresh = lineageView(data);
  const was = old.querySelector(":scope > details"), now = fresh.querySelector(":scope > details");
  if (was && now) now.open = was.open;
  old.replaceWith(fresh);
  return true;
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
    for (const r of data.rounds) {
      v.rounds.push(r);
      frag.append(roundRow(r));
    }
    tl.append(frag);
    if (v.branches) drawBranches(tl, v.branches);
    v.next = data.next;
    // Round 0 (what comes before the first prompt) is not counted, as in
    // the header.
    const n = v.rounds.filter((r) => r.seq > 0).length;
    more.textContent = v.next < 0 ? (n === 1 ? "the only round" : `all ${n} rounds`) : `${n} of ${plural(v.session.rounds, "round")} loaded; scroll for more`;
  } finally {
    v.loading = false;
  }
}

function roundRow(r) {
  const prompt = r.user_preview ? promptText(r.user_preview) : "", index = stripAnsi(r.index || "");
  const row = el("div", { class: "round", dataset: { seq: r.seq } });
  const toggle = el("button", { class: "toggle", title: "open the round (o)", "aria-label": "open round " + r.seq }, "▸");
  const pick = el("input", { type: "checkbox", class: "pick", title: "select (x)", "aria-label": "select round " + r.seq, checked: view.selected.has(r.seq) });
  pick.addEventListener("click", (e) => { e.stopPropagation(); select(r.seq, { ctrlKey: true, shiftKey: e.shiftKey }); });
  const tags = [];
  if (r.engagement) tags.push(el("span", { class: "badge eng" }, r.engagement));
  if (r.frame) tags.push(el("span", { class: "badge frame" }, r.frame));
  const line = el("div", { class: "line" }, toggle, pick,
    el("span", { class: "seq" }, String(r.seq).padStart(3, "0")),
    el("span", { class: "muted mono when" }, when(r.started_at)),
    el("span", { class: "index", title: (prompt ? prompt + "\n" : "") + index },
      prompt ? el("span", { class: "prompt" }, prompt) : "",
      prompt && index ? el("span", { class: "muted" }, " → ") : "",
      index || (prompt ? "" : el("span", { class: "muted" }, r.roles))),
    roundStats(r),
    el("span", { class: "tags" }, tags));
  // A click opens the round; shift and ctrl/cmd clicks select, as in a
  // file manager.
  line.addEventListener("click", (e) => {
    view.cursor = r.seq;
    if (e.shiftKey || e.ctrlKey || e.metaKey) return select(r.seq, e);
    if (window.getSelection().toString()) return; // the reader is selecting text
    expand(row);
  });
  row.append(line);
  return row;
}

// roundStats is the index line's figures: tool calls (the tools' names in
// its title), duration, tokens.
function roundStats(r) {
  const u = r.usage || {};
  const ctx = (u.input_tokens || 0) + (u.cache_read_input_tokens || 0) + (u.cache_creation_input_tokens || 0);
  const parts = [];
  const tools = r.tools || [], calls = r.tool_calls || 0;
  if (calls || tools.length) parts.push(el("span", { class: "calls", title: "tools called: " + tools.join(", ") }, `${calls} tool call${calls === 1 ? "" : "s"}`));
  const d = duration(r.started_at, r.ended_at);
  if (d) parts.push(el("span", {}, d));
  if (ctx || u.output_tokens) parts.push(el("span", { title: `${ctx} tokens read (input and cache), ${u.output_tokens || 0} written` }, `${human(ctx)} in · ${human(u.output_tokens || 0)} out`));
  return el("span", { class: "stats muted" }, parts);
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
  for (const row of document.querySelectorAll(".round")) {
    const on = v.selected.has(Number(row.dataset.seq));
    row.classList.toggle("selected", on);
    const pick = row.querySelector(".pick");
    if (pick) pick.checked = on;
  }
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
  document.getElementById("selection").textContent = n ? `${n} selected: ${ranges(view.selected)}` : "select rounds: ☐, x or shift-click";
  for (const b of document.querySelectorAll("[data-needs-selection]")) b.disabled = n === 0;
}

function toolbar() {
  const fid = el("select", { id: "fidelity", title: "fidelity of expanded rounds and of exports" },
    ["full", "partial", "text"].map((f) => el("option", { value: f, selected: f === view.fidelity }, f)));
  fid.addEventListener("change", () => {
    view.fidelity = fid.value;
    for (const row of document.querySelectorAll(".round")) if (row.querySelector(".body")) expand(row, true);
  });
  const eng = el("input", { id: "engagement", placeholder: "engagement", size: 11, title: "Enter tags the selection" });
  eng.addEventListener("keydown", (e) => { if (e.key === "Enter" && view.selected.size) tagSelection(eng.value.trim()); });
  const bar = el("div", { class: "toolbar" },
    el("span", { id: "selection", class: "muted" }),
    el("span", { class: "sep" }),
    eng,
    el("button", { id: "tag", "data-needs-selection": true, onclick: () => tagSelection(eng.value.trim()) }, "Tag"),
    el("button", { id: "untag", "data-needs-selection": true, onclick: untagSelection }, "Untag"),
    el("span", { class: "sep" }),
    el("button", { id: "split", "data-needs-selection": true, onclick: splitSelection, title: "the selection becomes one child, the rest another" }, "Split"),
    el("button", { id: "extract", onclick: () => extract(eng.value.trim()), title: "extract the engagement: its rounds, in full, as a new session" }, "Extract"),
    el("button", { id: "revive", onclick: revive, title: "compress older work, export a session to resume" }, "Revive"),
    el("span", { class: "sep" }),
    el("label", {}, "fidelity ", fid),
    findBar(view.find));
  queueMicrotask(updateSelection);
  // The sticky round header sits below the toolbar, however many lines
  // the toolbar wraps to.
  new ResizeObserver(() => document.documentElement.style.setProperty("--toolbar-h", bar.offsetHeight + "px")).observe(bar);
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

// agentBadge labels a subagent session: the agent Claude Code runs to
// compact a context is named as such.
function agentBadge(agentID, parent) {
  const id = agentID || "";
  if (id.startsWith("acompact")) return el("span", { class: "badge subagent compact", title: "the agent that wrote the summary when the context of " + parent + " was compacted" }, "compaction agent");
  return el("span", { class: "badge subagent", title: "a subagent of " + parent }, "subagent " + id.slice(0, 8));
}

// ---- engagement × agent matrix ----

async function matrixPage() {
  main.append(el("h1", {}, "Engagement × agent"));
  const mx = await pageGet("/api/matrix");
  if (!mx.rows || !mx.rows.length) return main.append(el("p", { class: "empty" }, "No tagged rounds yet: select rounds in a session and tag them."));
  main.append(el("p", { class: "muted" }, "Rows are engagement phases (cairn engagement phase NAME), columns agent roles; a subagent's rounds name the round whose call spawned it."));
  // A session is named by its title, shortened; its id is a hover away.
  const named = (id) => {
    const t = mx.titles && mx.titles[id] ? promptText(mx.titles[id]).replace(/\s+/g, " ") : "";
    return t ? (t.length > 40 ? t.slice(0, 39) + "…" : t) : short(id);
  };
  const cell = (rounds) => {
    if (!rounds || !rounds.length) return "·";
    const by = new Map();
    for (const r of rounds) { if (!by.has(r.session_id)) by.set(r.session_id, { seqs: [], spawn: r.spawned_by }); by.get(r.session_id).seqs.push(r.seq); }
    return [...by].map(([sid, { seqs, spawn }], i) => [i ? "; " : "",
      spawn ? [el("a", { href: `#/session/${encodeURIComponent(spawn.session_id)}?round=${spawn.round}`, title: `${spawn.description || spawn.tool || "spawned here"} (session ${spawn.session_id})` }, `${named(spawn.session_id)} round ${spawn.round}`), " → "] : "",
      el("a", { href: `#/session/${encodeURIComponent(sid)}?round=${Math.min(...seqs)}`, title: "session " + sid }, spawn ? (spawn.agent_id || "agent") : named(sid)), ` ${seqs.length === 1 ? "round" : "rounds"} ${ranges(seqs)}`]);
  };
  const when = (row) => row.phase ? el("div", { class: "muted" }, row.started_at.slice(0, 16).replace("T", " ") + (row.ended_at ? " → " + row.ended_at.slice(0, 16).replace("T", " ") : " → now")) : "";
  main.append(el("table", { class: "matrix", id: "matrix" },
    el("thead", {}, el("tr", {}, el("th", {}, "engagement / phase"), mx.agents.map((a) => el("th", {}, a)))),
    el("tbody", {}, mx.rows.map((row) => el("tr", {}, el("th", {}, row.key, when(row)), mx.agents.map((a) => el("td", {}, cell(mx.cells[row.key][a]))))))));
}

// ---- frames ----

async function framesPage() {
  main.append(el("h1", {}, "Frames"));
  const data = await pageGet("/api/frames");
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
