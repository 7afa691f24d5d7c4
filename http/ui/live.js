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

// refreshSession updates the open session: its header, and its rounds
// from the last one shown (which may have grown) on; an open round is
// rendered again where it is.
async function refreshSession() {
  const v = view;
  if (v.refreshing) { v.again = true; return; }
  v.refreshing = true;
  try {
    // The header and the rounds from the last one shown, asked together.
    const last = v.rounds.length ? v.rounds[v.rounds.length - 1].seq : 0;
    const [data, page] = await Promise.all([
      api("GET", "/api/sessions/" + encodeURIComponent(v.id)),
      v.next < 0 ? api("GET", `/api/sessions/${encodeURIComponent(v.id)}/rounds?from=${last}&limit=500`) : null,
    ]);
    if (v !== view) return;
    v.session = data.session;
    document.getElementById("session-meta").replaceWith(metaView(data.session, data.running));
    if (!page) return; // the rest is not loaded yet: scrolling loads it
    const tl = document.getElementById("timeline");
    for (const r of page.rounds) {
      const i = v.rounds.findIndex((x) => x.seq === r.seq);
      const fresh = roundRow(r);
      fresh.classList.toggle("selected", v.selected.has(r.seq));
      if (i >= 0) {
        v.rounds[i] = r;
        const row = tl.querySelector(`.round[data-seq="${r.seq}"]`);
        const open = row && row.querySelector(".body");
        row.replaceWith(fresh);
        if (open) expand(fresh, true);
      } else {
        v.rounds.push(r);
        fresh.classList.add("new");
        tl.append(fresh);
      }
    }
    v.next = page.next;
    const n = v.rounds.filter((r) => r.seq > 0).length;
    document.getElementById("more").textContent = v.next < 0 ? `all ${n} rounds · live` : `${n} of ${v.session.rounds} rounds loaded; scroll for more`;
  } finally {
    v.refreshing = false;
    if (v.again) { v.again = false; refreshSession(); }
  }
}

startLive();
