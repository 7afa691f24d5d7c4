// Live updates: the server pushes the sessions that changed (cairn serve
// --watch imports transcripts as they grow); an open session shows its new
// and grown rounds, the sessions list reloads.
"use strict";

function startLive() {
  if (!window.EventSource) return;
  const es = new EventSource("/api/events");
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
    document.getElementById("session-meta").replaceWith(metaView(data.session));
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
