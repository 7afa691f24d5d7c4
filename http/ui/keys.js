// Keyboard: / search, n N next and previous find, j k between rounds,
// o open, x select, t tag, ? the list.
"use strict";

const keyHelp = "Ctrl+K (⌘K) the command palette · / search · n N next/previous match · j k next/previous round · o open · x select · t tag · Esc leave a field";

// moveCursor puts the cursor on the round delta rows away.
function moveCursor(delta) {
  const rows = [...document.querySelectorAll("#timeline .round")];
  if (!rows.length) return;
  let i = rows.findIndex((r) => Number(r.dataset.seq) === view.cursor);
  i = i < 0 ? (delta > 0 ? 0 : rows.length - 1) : Math.max(0, Math.min(rows.length - 1, i + delta));
  view.cursor = Number(rows[i].dataset.seq);
  showCursor();
  if (i === rows.length - 1) loadMore();
}

function showCursor() {
  for (const r of document.querySelectorAll(".round.cursor")) r.classList.remove("cursor");
  const row = document.querySelector(`.round[data-seq="${view.cursor}"]`);
  if (!row) return;
  row.classList.add("cursor");
  row.querySelector(".line").scrollIntoView({ block: "nearest" });
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
  if (!view || !document.getElementById("timeline")) return;
  switch (e.key) {
    case "j": moveCursor(1); break;
    case "k": moveCursor(-1); break;
    case "o":
    case "Enter": {
      const row = document.querySelector(`.round[data-seq="${view.cursor}"]`);
      if (row) expand(row);
      break;
    }
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
