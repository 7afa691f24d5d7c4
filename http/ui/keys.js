// Keyboard: / search, n N next and previous find, j k between rounds, or
// (and the arrows) between the steps of the round Enter went into, or
// between search hits; o open, Enter go in, Esc back out, x select, t
// tag, ? the list.
"use strict";

const keyHelp = "Ctrl+K (⌘K) the command palette · / search · n N next/previous match · j k next/previous round, step (↓ ↑ too) or search hit · o open · Enter go into a round, open a step · Esc back out · x select · t tag";

// The cursor is on a round's line or on a step of an open round. j and k
// walk the rounds, or the steps of the round the cursor went into; Enter
// goes into a round (opened) or opens a step's calls; Escape goes back out.

// cursorAt is the round or step the cursor is on.
function cursorAt() {
  return view.cursorEl && view.cursorEl.isConnected ? view.cursorEl : document.querySelector(`.round[data-seq="${view.cursor}"]`);
}

// moveCursor puts the cursor delta rounds away, or delta steps within its
// round when it is on a step (not a subagent's, shown inside a call).
function moveCursor(delta) {
  const at = cursorAt();
  const inSteps = at && at.classList.contains("step");
  const list = inSteps ? [...at.closest(".body").querySelectorAll(".step:not([hidden])")] : [...document.querySelectorAll("#timeline .round")];
  if (!list.length) return;
  let i = list.indexOf(at);
  i = i < 0 ? (delta > 0 ? 0 : list.length - 1) : Math.max(0, Math.min(list.length - 1, i + delta));
  view.cursorEl = list[i];
  view.cursor = Number(list[i].closest(".round").dataset.seq);
  showCursor(true);
  if (!inSteps && i === list.length - 1) loadMore();
}

// showCursor marks the cursor's round or step, and with focus moves the
// keyboard's focus there, so a screen reader reads it and Tab goes on
// from it: a step under the cursor lets Tab reach its copy buttons,
// which other steps keep out of the Tab order.
function showCursor(focus) {
  for (const r of document.querySelectorAll(".cursor")) r.classList.remove("cursor");
  for (const b of document.querySelectorAll(".step [data-roving]")) b.tabIndex = -1;
  let at = view.cursorEl && view.cursorEl.isConnected ? view.cursorEl : null;
  if (!at || Number(at.closest(".round").dataset.seq) !== view.cursor) at = view.cursorEl = document.querySelector(`.round[data-seq="${view.cursor}"]`);
  if (!at) return;
  at.classList.add("cursor");
  const target = at.classList.contains("step") ? at : at.querySelector(".line");
  if (at.classList.contains("step")) for (const b of at.querySelectorAll("[data-roving]")) b.tabIndex = 0;
  target.scrollIntoView({ block: "nearest" });
  if (focus) {
    if (target.tabIndex < 0 && !target.hasAttribute("tabindex")) target.tabIndex = -1;
    target.focus({ preventScroll: true });
  }
}

// openAtCursor opens what the cursor is on: a round, the cursor going
// into its first step; a step's calls and thinking (or closes them).
async function openAtCursor() {
  const at = cursorAt();
  if (!at) return;
  if (at.classList.contains("round")) {
    if (!at.classList.contains("open") || !at.querySelector(".body")) await expand(at, true);
    const first = at.querySelector(".body .step:not([hidden])");
    if (first) { view.cursorEl = first; showCursor(true); }
    return;
  }
  const parts = [...at.querySelectorAll(":scope > .step-body > details")];
  const open = parts.some((d) => !d.open);
  for (const d of parts) d.open = open;
}

// back is where Escape goes when nothing is left to close: the page the
// reader came from in this viewer, else the list of sessions.
let lastPage = "", thisPage = location.hash;
addEventListener("hashchange", () => {
  if (location.hash.split("?")[0] !== thisPage.split("?")[0]) lastPage = thisPage;
  thisPage = location.hash;
});

// escapeOut leaves what the cursor is in: a step for its round, an open
// round for its line, a page for the one before.
function escapeOut() {
  const at = view && view.cursorEl && view.cursorEl.isConnected ? view.cursorEl : null;
  if (at && at.classList.contains("step")) {
    view.cursorEl = at.closest(".round");
    return showCursor(true);
  }
  const row = view && document.querySelector(`.round.open[data-seq="${view.cursor}"]`);
  if (row && document.getElementById("timeline")) {
    expand(row);
    view.cursorEl = row;
    return showCursor(true);
  }
  location.hash = lastPage || "#/";
}

// moveHit puts the focus on the search hit delta away; Enter follows it.
function moveHit(delta) {
  const links = [...document.querySelectorAll("#hits .hit-title")];
  if (!links.length) return;
  let i = links.indexOf(document.activeElement);
  i = i < 0 ? (delta > 0 ? 0 : links.length - 1) : Math.max(0, Math.min(links.length - 1, i + delta));
  links[i].focus();
  links[i].scrollIntoView({ block: "nearest" });
}

// focusAfterKey focuses a field once the key that asked for it is done,
// and keeps that key's character out of the field: some input paths send
// it after the keydown, however the keydown was handled.
let swallow = null;
function focusAfterKey(field, key) {
  swallow = { field, key, until: performance.now() + 500 };
  setTimeout(() => { field.focus(); if (field.select) field.select(); });
}
document.addEventListener("keypress", (e) => {
  if (swallow && e.target === swallow.field && e.key === swallow.key && performance.now() < swallow.until) {
    e.preventDefault();
    swallow = null;
  }
}, true);

document.addEventListener("keydown", (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const t = e.target;
  if (t.matches && t.matches("input, textarea, select")) {
    if (e.key === "Escape") t.blur();
    return;
  }
  if (e.key === "/") {
    e.preventDefault();
    focusAfterKey(document.querySelector("#global-search input"), "/");
    return;
  }
  if (e.key === "?") return toast(keyHelp);
  if (e.key === "n" || e.key === "N") {
    if (!finder.marks.length) return;
    e.preventDefault();
    findGo(finder.at + (e.key === "n" ? 1 : -1));
    return;
  }
  if (document.getElementById("hits")) {
    if (e.key === "j" || e.key === "ArrowDown") { e.preventDefault(); moveHit(1); }
    else if (e.key === "k" || e.key === "ArrowUp") { e.preventDefault(); moveHit(-1); }
    else if (e.key === "Escape") escapeOut();
    return;
  }
  if (!view || !document.getElementById("timeline")) {
    if (e.key === "Escape" && !document.querySelector("dialog[open]")) escapeOut();
    return;
  }
  // Enter on a link, a button or a summary does what it does.
  const native = t.closest && t.closest("a, button, summary");
  switch (e.key) {
    case "j": moveCursor(1); break;
    case "k": moveCursor(-1); break;
    case "ArrowDown": case "ArrowUp":
      // Arrows walk the steps once the cursor is on one; before, they
      // scroll the page as they always do.
      if (!view.cursorEl || !view.cursorEl.isConnected) return;
      moveCursor(e.key === "ArrowDown" ? 1 : -1);
      break;
    case "o": {
      const at = cursorAt();
      if (at && at.classList.contains("round")) expand(at);
      else openAtCursor();
      break;
    }
    case "Enter":
      if (native) return;
      openAtCursor();
      break;
    case "Escape":
      if (document.querySelector("dialog[open]")) return;
      escapeOut();
      break;
    case "x":
      if (view.cursor !== null) select(view.cursor, { ctrlKey: true });
      break;
    case "t": {
      if (!view.selected.size && view.cursor !== null) select(view.cursor, { ctrlKey: true });
      e.preventDefault();
      focusAfterKey(document.getElementById("engagement"), "t");
      break;
    }
    default: return;
  }
});
