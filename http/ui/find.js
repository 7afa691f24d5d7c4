// Finding words on the page: the words of a search marked in the opened
// rounds, n and N to go from one to the next.
"use strict";

// queryWords reads a query as the server does (cairn.QueryWords): runs of
// letters, digits and '_', a trailing '*' making a prefix.
function queryWords(q) {
  return String(q || "").split(/[^\p{L}\p{N}_*]+/u).map((w) => {
    const prefix = w.endsWith("*");
    w = w.replace(/\*/g, "");
    return w ? { w, prefix } : null;
  }).filter(Boolean);
}

// wordsRegExp matches any of the words: whole words, or prefixes; the
// search index also matches a word's stem, so a word matches as a prefix
// of a longer one too ("compact" finds "compacted").
function wordsRegExp(words) {
  if (!words.length) return null;
  const esc = words.map(({ w }) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`(?<![\\p{L}\\p{N}_])(?:${esc.join("|")})[\\p{L}\\p{N}_]*`, "giu");
}

const finder = { marks: [], at: -1, query: "" };

// alnum keeps the letters and digits of s, lower-cased: text compared so
// survives markdown rendering.
const alnum = (s) => String(s).toLowerCase().replace(/[^\p{L}\p{N}]+/gu, "");

// clearFind removes the marks of the last find.
function clearFind() {
  for (const m of document.querySelectorAll("mark.find")) m.replaceWith(document.createTextNode(m.textContent));
  for (const p of new Set(finder.marks.map((m) => m.parentNode).filter(Boolean))) p.normalize();
  finder.marks = [];
  finder.at = -1;
}

// markIn marks the words of query in the readable text under root (what
// users and agents wrote, and compaction dividers), returning the marks in
// page order.
function markIn(root, query) {
  const re = wordsRegExp(queryWords(query));
  const marks = [];
  if (!re) return marks;
  const scopes = root.querySelectorAll(".block.user .text, .block.assistant .text, .compaction, .index");
  for (const scope of scopes) {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    for (const node of nodes) {
      const text = node.nodeValue;
      re.lastIndex = 0;
      if (!re.test(text)) continue;
      re.lastIndex = 0;
      const frag = document.createDocumentFragment();
      let last = 0, m;
      while ((m = re.exec(text))) {
        if (m.index > last) frag.append(text.slice(last, m.index));
        const mk = document.createElement("mark");
        mk.className = "find";
        mk.textContent = m[0];
        frag.append(mk);
        marks.push(mk);
        last = re.lastIndex;
      }
      frag.append(text.slice(last));
      node.replaceWith(frag);
    }
  }
  return marks;
}

// find marks query in the page's opened rounds and goes to the first mark
// at or after from (an element), or the first; with near, to the first
// whose block holds those letters (a search snippet's).
function find(query, from, near) {
  clearFind();
  finder.query = query;
  const root = document.getElementById("timeline") || document.getElementById("main");
  // A long text shows its head; one whose hidden part holds the words is
  // shown in full first, so that the find lands on them.
  const re = wordsRegExp(queryWords(query));
  if (re) unclampMatching(root, re);
  finder.marks = markIn(root, query);
  let at = 0;
  if (from) {
    const i = finder.marks.findIndex((m) => from.contains(m) || (from.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING));
    if (i >= 0) at = i;
  }
  if (near) {
    const i = finder.marks.findIndex((m, j) => j >= at && alnum((m.closest(".block") || m.parentNode).textContent).includes(near));
    if (i >= 0) at = i;
  }
  updateFindCount();
  if (finder.marks.length) findGo(at);
  return finder.marks.length;
}

// findGo moves to mark i (wrapping), scrolled to the middle of the window.
function findGo(i) {
  const n = finder.marks.length;
  if (!n) return;
  if (finder.at >= 0) finder.marks[finder.at].classList.remove("current");
  finder.at = ((i % n) + n) % n;
  const m = finder.marks[finder.at];
  m.classList.add("current");
  for (let d = m.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
  const step = m.closest(".step");
  if (step) step.hidden = false;
  m.scrollIntoView({ block: "center" });
  updateFindCount();
}

function updateFindCount() {
  const c = document.getElementById("find-count");
  if (c) c.textContent = finder.query ? (finder.marks.length ? `${finder.at + 1} of ${finder.marks.length}` : "not in the opened rounds") : "";
}

// findBar is the toolbar's find box: Enter finds, n and N go on.
function findBar(initial) {
  const input = el("input", { id: "find", type: "search", placeholder: "find in opened rounds", size: 14, value: initial || "", title: "Enter finds; n / N: next / previous" });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); e.shiftKey ? findGo(finder.at - 1) : (finder.query === input.value && finder.marks.length ? findGo(finder.at + 1) : find(input.value)); }
    if (e.key === "Escape") { input.value = ""; clearFind(); finder.query = ""; updateFindCount(); input.blur(); }
  });
  return el("span", { class: "findbar" }, input, el("span", { id: "find-count", class: "muted" }));
}
