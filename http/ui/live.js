// Live updates: the server pushes the sessions that changed (cairn serve
// --watch imports transcripts as they grow); an open session shows its new
// and grown rounds, the sessions list reloads. The page knows when the
// server is gone, says so, reconnects and fetches what it missed.
"use strict";

// conn is the state of the page's connection to the server.
const conn = { up: true, since: null };

// connectionLost says the server does not answer (the event stream broke,
// or a request found no server), until it answers again.
function connectionLost() {
  if (!conn.up) return;
  conn.up = false;
  conn.since = new Date();
  const c = document.getElementById("conn");
  const p = (n) => String(n).padStart(2, "0");
  c.textContent = `The cairn server has not answered since ${p(conn.since.getHours())}:${p(conn.since.getMinutes())}:${p(conn.since.getSeconds())}: what is shown may be out of date. Trying again every second…`;
  c.hidden = false;
}

// connectionBack is the server answering again: the page fetches what it
// missed meanwhile.
function connectionBack() {
  if (conn.up) return;
  conn.up = true;
  document.getElementById("conn").hidden = true;
  toast("Connected to the cairn server again.");
  catchUp().catch((err) => toast(err.message, true));
}

// catchUp fetches what changed while the page was not connected: the open
// session's header and new rounds, and the rounds that failed to open; or
// the page again.
async function catchUp() {
  if (view && document.getElementById("timeline")) {
    for (const row of document.querySelectorAll("#timeline .round")) if (row.querySelector(":scope > .body > .error")) expand(row, true);
    return refreshSession();
  }
  route();
}

// offline is the error a request that found no server fails with: the
// browser's own words ("Failed to fetch") say nothing to a reader.
const offline = () => new Error("The cairn server does not answer (is cairn serve still running?); the page reconnects by itself when it is back.");

function startLive() {
  if (!window.EventSource) return;
  const es = new EventSource("/api/events");
  es.addEventListener("open", connectionBack);
  es.addEventListener("error", () => {
    connectionLost();
    // The browser retries a broken stream by itself (the server asks for
    // every second); one it gave up on is opened again.
    if (es.readyState === EventSource.CLOSED) setTimeout(startLive, 2000);
  });
  es.addEventListener("message", (e) => {
    let ev;
    try { ev = JSON.parse(e.data); } catch { return; }
    changed(ev.sessions || []).catch((err) => toast(err.message, true));
  });
}

let listTimer = null;

async function changed(ids) {
  const onSession = view && document.getElementById("timeline") && ids.includes(view.id);
  if (onSession) return refreshSession();
  const onList = document.getElementById("sessions") || document.getElementById("no-sessions");
  if (onList && !document.activeElement.matches("input, select")) {
    clearTimeout(listTimer);
    listTimer = setTimeout(route, 300);
  }
}

// refreshSession updates the open session: its header, its children (a
// subagent that appeared or grew), its rounds from the last one shown
// (which may have grown) on, and a pi session's branches (a branch left
// turns rounds of the path into one). The rows and open rounds that
// changed are drawn again off the page, then swapped in at once, with
// the calls and blocks the reader opened open again and the reader kept
// where they were.
async function refreshSession() {
  const v = view;
  if (v.refreshing) { v.again = true; return; }
  v.refreshing = true;
  try {
    const id = encodeURIComponent(v.id);
    const last = v.rounds.length ? v.rounds[v.rounds.length - 1].seq : 0;
    const [data, page, tree] = await Promise.all([
      api("GET", "/api/sessions/" + id),
      // The rest is not loaded yet when next >= 0: scrolling loads it.
      v.next < 0 ? api("GET", `/api/sessions/${id}/rounds?from=${last}&limit=500`) : null,
      v.branches ? api("GET", `/api/sessions/${id}/branches`) : null,
    ]);
    if (v !== view) return;
    v.session = data.session;
    document.getElementById("session-meta").replaceWith(metaView(data.session, data.running));
    const tl = document.getElementById("timeline");
    const kin = showLineage(data);
    // Rows drawn again: rounds that grew, and open rounds that show a
    // subagent in place once the children changed.
    const redo = new Map();
    for (const r of page ? page.rounds : []) {
      const i = v.rounds.findIndex((x) => x.seq === r.seq);
      if (i >= 0 && JSON.stringify(v.rounds[i]) === JSON.stringify(r)) continue;
      redo.set(r.seq, r);
    }
    if (kin) for (const row of tl.querySelectorAll(":scope > .round.open")) {
      const seq = Number(row.dataset.seq);
      if (!redo.has(seq) && row.querySelector(".subagent-missing, details.subagent-inline")) redo.set(seq, v.rounds.find((x) => x.seq === seq));
    }
    const rows = await Promise.all([...redo.values()].map((r) => freshRow(tl.querySelector(`:scope > .round[data-seq="${r.seq}"]`), r)));
    if (v !== view) return;
    const keep = rows.length || tree ? keepPlace(tl) : () => {};
    for (const fresh of rows) {
      const seq = Number(fresh.dataset.seq);
      const i = v.rounds.findIndex((x) => x.seq === seq);
      const row = tl.querySelector(`:scope > .round[data-seq="${seq}"]`);
      if (i >= 0) v.rounds[i] = redo.get(seq);
      else v.rounds.push(redo.get(seq));
      if (!row) {
        tl.append(fresh);
        continue;
      }
      const focused = row.contains(document.activeElement);
      row.replaceWith(fresh);
      if (focused) focusCursor();
    }
    if (tree) v.branches = new Map(tree.branches.map((b) => [b.round, b]));
    if (v.branches) drawBranches(tl, v.branches);
    keep();
    if (!page) return;
    v.next = page.next;
    const n = v.rounds.filter((r) => r.seq > 0).length;
    document.getElementById("more").textContent = v.next < 0 ? `all ${n} rounds · live` : `${n} of ${v.session.rounds} rounds loaded; scroll for more`;
  } finally {
    v.refreshing = false;
    if (v.again) { v.again = false; refreshSession(); }
  }
}

// freshRow draws round r's row again, off the page, in place of row (none:
// a new round, marked new): opened, when row was, with what the reader
// had opened in it (calls, thoughts, subagents: the details named by
// their line and index, or their session) opened again.
async function freshRow(row, r) {
  const fresh = roundRow(r);
  fresh.classList.toggle("selected", view.selected.has(r.seq));
  if (!row) fresh.classList.add("new");
  if (row && row.classList.contains("cursor")) fresh.classList.add("cursor");
  const body = row && row.querySelector(":scope > .body");
  if (!body) return fresh;
  const nb = await expand(fresh, true);
  if (!nb) return fresh;
  const step = body.querySelector(".step.cursor[data-step]");
  const at = step && nb.querySelector(`.step[data-step="${step.dataset.step}"]`);
  if (at) {
    at.classList.add("cursor");
    if (view.cursorEl === step) view.cursorEl = at;
  }
  for (const d of body.querySelectorAll("details[open]")) {
    const key = d.dataset.line !== undefined ? `details[data-line="${d.dataset.line}"][data-index="${d.dataset.index}"]`
      : d.dataset.id ? `details.subagent-inline[data-id="${CSS.escape(d.dataset.id)}"]` : null;
    const again = key && nb.querySelector(key);
    if (!again) continue;
    if (again.fill) again.fill();
    again.open = true;
  }
  return fresh;
}

// focusCursor gives the keyboard's focus back to the cursor's round or
// step, drawn again, without scrolling.
function focusCursor() {
  const at = cursorAt();
  const target = at && (at.classList.contains("step") ? at : at.querySelector(".line"));
  if (!target) return;
  if (!target.hasAttribute("tabindex")) target.tabIndex = -1;
  target.focus({ preventScroll: true });
}

// keepPlace notes where the reader is, the first round or block at the
// top of the window, and returns what scrolls it back there once the
// timeline has been drawn again (rows above it grown, moved or redrawn).
// The browser's own scroll anchoring is off meanwhile: it chose its
// anchor in the rows being replaced.
function keepPlace(tl) {
  const root = document.documentElement;
  root.style.overflowAnchor = "none";
  let seq = null, rowTop = 0, key = null, keyTop = 0;
  for (const row of tl.querySelectorAll(":scope > .round")) {
    const r = row.getBoundingClientRect();
    if (r.bottom <= 0) continue;
    seq = row.dataset.seq, rowTop = r.top;
    for (const b of row.querySelectorAll(":scope > .body [data-line][data-index]")) {
      const br = b.getBoundingClientRect();
      if (br.height === 0 || br.top < 0) continue;
      key = `[data-line="${b.dataset.line}"][data-index="${b.dataset.index}"]`, keyTop = br.top;
      break;
    }
    break;
  }
  return () => {
    const row = seq === null ? null : tl.querySelector(`:scope > .round[data-seq="${seq}"]`);
    const at = row && key && row.querySelector(":scope > .body " + key);
    if (at) window.scrollBy(0, at.getBoundingClientRect().top - keyTop);
    else if (row) window.scrollBy(0, row.getBoundingClientRect().top - rowTop);
    root.style.overflowAnchor = "";
  };
}

startLive();
