// Finding words on the page: the words of a search marked in the opened
// rounds, tool calls' inputs and outputs included, n and N to go from one
// to the next, each shown below the bars that stick to the window's top.
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

// openMatchingCalls renders the body of every tool call under root whose
// input or result re matches (a call's body is otherwise made when it is
// first opened), so that its words can be marked.
function openMatchingCalls(root, re) {
  const calls = [];
  for (const d of root.querySelectorAll("details.call")) {
    re.lastIndex = 0;
    if (d.callText && re.test(d.callText())) { d.fill(); calls.push(d); }
  }
  re.lastIndex = 0;
  return calls;
}

// showMatchingView shows a call as stored when its rendered view does not
// show the words (a tool's view leaves parts of the input out).
function showMatchingView(calls, re) {
  for (const d of calls) {
    const rich = d.querySelector(".call-body > .rich"), raw = d.querySelector(".call-body > .raw");
    if (!rich || !raw || !raw.hidden) continue;
    re.lastIndex = 0;
    const inRich = re.test(rich.textContent);
    re.lastIndex = 0;
    if (!inRich && re.test(raw.textContent)) d.showRaw(true);
  }
  re.lastIndex = 0;
}

// markIn marks the words of query in the readable text under root (what
// users and agents wrote, compaction dividers, the shown view of tool
// calls), returning the marks in page order.
function markIn(root, query) {
  const re = wordsRegExp(queryWords(query));
  const marks = [];
  if (!re) return marks;
  const scopes = root.querySelectorAll(".block.user .text, .block.assistant .text, .compaction, .index, .call-body > .rich:not([hidden]), .call-body > .raw:not([hidden])");
  for (const scope of scopes) {
    const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) if (!walker.currentNode.parentNode.closest("mark.find")) nodes.push(walker.currentNode);
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
  if (re) {
    const calls = openMatchingCalls(root, re);
    unclampMatching(root, re);
    showMatchingView(calls, re);
  }
  finder.marks = markIn(root, query);
  let at = 0;
  if (from) {
    const i = finder.marks.findIndex((m) => from.contains(m) || (from.compareDocumentPosition(m) & Node.DOCUMENT_POSITION_FOLLOWING));
    if (i >= 0) at = i;
  }
  if (near) {
    const holds = (m) => {
      const b = m.closest(".block") || m.parentNode;
      return alnum(b.textContent).includes(near) || (b.callText !== undefined && alnum(b.callText()).includes(near));
    };
    const i = finder.marks.findIndex((m, j) => j >= at && holds(m));
    if (i >= 0) at = i;
  }
  updateFindCount();
  if (finder.marks.length) findGo(at);
  return finder.marks.length;
}

// stuckBottom is how far down the window the bars that stick to its top
// reach above el once stuck: the header, the toolbar, el's round's line
// and bar (those that stick at this width).
function stuckBottom(el) {
  const round = el.closest(".round.open");
  const bars = [document.querySelector("header"), document.querySelector(".toolbar"),
    round && round.querySelector(":scope > .line"), round && round.querySelector(":scope > .body > .round-bar")];
  let bottom = 0;
  for (const b of bars) {
    if (!b) continue;
    const cs = getComputedStyle(b);
    if (cs.position === "sticky") bottom = Math.max(bottom, parseFloat(cs.top) + b.offsetHeight);
  }
  return bottom;
}

// reveal scrolls el into the window below the sticky bars: its top just
// under them (at: "start"), or the middle of what they leave ("center").
// The page may still move once it has: the steps near it laid out for the
// first time (off-screen ones are not), a bar that changes height; for a
// few frames, el is put back where it belongs if it moved.
function reveal(el, at) {
  const place = () => {
    el.scrollIntoView({ block: at === "start" ? "start" : "center" }); // scrolls the boxes it sits in too
    const top = stuckBottom(el), r = el.getBoundingClientRect();
    const want = at === "start" ? top + 6 : top + Math.max(6, (innerHeight - top - r.height) / 2);
    window.scrollBy(0, r.top - want);
    return el.getBoundingClientRect().top;
  };
  let at0 = place(), frames = 0;
  const check = () => {
    if (++frames > 8 || !el.isConnected || revealing !== el) return;
    if (Math.abs(el.getBoundingClientRect().top - at0) > 2) at0 = place();
    requestAnimationFrame(check);
  };
  revealing = el;
  requestAnimationFrame(check);
}
let revealing = null;

// findGo moves to mark i (wrapping), shown in the middle of the window
// below its sticky bars.
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
  reveal(m, "center");
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
