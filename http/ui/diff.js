// Edits as diffs: an Edit's old and new text (Claude Code's Edit and
// MultiEdit, Gemini CLI's replace, opencode's edit) and Codex's apply_patch
// patches, shown as unified diffs: a line per row with its old and new
// numbers where the transcript tells them, the words that changed marked
// within a changed line, and an edit the tool refused shown as not
// applied rather than as red and green.
"use strict";

// lineDiff returns the lines of a and b as [op, line] pairs, op one of
// " ", "-", "+": a longest-common-subsequence diff, or all of a removed
// then all of b added when the texts are too large to compare.
function lineDiff(a, b) {
  return seqDiff(a.split("\n"), b.split("\n"), 4e6);
}

// seqDiff diffs two arrays of strings (lines or words) as lineDiff does,
// comparing at most limit pairs.
function seqDiff(x, y, limit) {
  let pre = 0;
  while (pre < x.length && pre < y.length && x[pre] === y[pre]) pre++;
  let suf = 0;
  while (suf < x.length - pre && suf < y.length - pre && x[x.length - 1 - suf] === y[y.length - 1 - suf]) suf++;
  const xs = x.slice(pre, x.length - suf), ys = y.slice(pre, y.length - suf);
  const out = x.slice(0, pre).map((l) => [" ", l]);
  if (xs.length * ys.length > limit) {
    out.push(...xs.map((l) => ["-", l]), ...ys.map((l) => ["+", l]));
  } else {
    const n = xs.length, m = ys.length;
    const dp = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) dp[i][j] = xs[i] === ys[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && xs[i] === ys[j]) { out.push([" ", xs[i]]); i++; j++; }
      else if (i < n && (j === m || dp[i + 1][j] >= dp[i][j + 1])) out.push(["-", xs[i++]]);
      else out.push(["+", ys[j++]]);
    }
  }
  out.push(...x.slice(x.length - suf).map((l) => [" ", l]));
  return out;
}

// words cuts a line into words, runs of spaces and single other
// characters, the units a changed line's marks are made of.
const words = (s) => s.match(/\w+|\s+|[^\w\s]/g) || [];

// wordMarks renders a changed line's text with the words op ("-" or "+")
// has that other lacks marked (span.wd); unmarked when the lines share
// too little for marks to help.
function wordMarks(line, other, op) {
  if (line.length + other.length > 4000) return [line];
  const d = op === "-" ? seqDiff(words(line), words(other), 1e5) : seqDiff(words(other), words(line), 1e5);
  const mine = d.filter(([o]) => o === " " || o === op);
  const same = mine.filter(([o]) => o === " ").reduce((n, [, w]) => n + w.trim().length, 0);
  if (same < line.replace(/\s/g, "").length / 3) return [line];
  const out = [];
  for (const [o, w] of mine) {
    const last = out[out.length - 1];
    if (o === " ") typeof last === "string" ? (out[out.length - 1] += w) : out.push(w);
    else if (last instanceof Node) last.textContent += w;
    else out.push(el("span", { class: "wd" }, w));
  }
  return out;
}

// diffRows appends a diff's rows to pre: unchanged runs longer than six
// lines folded, a run of removed lines followed by one of added lines
// paired line by line for word marks. at is {old, new}, the first lines'
// numbers, or null when the transcript does not tell them; a row's
// number (data-n, the new file's, a removed line's the old file's) is
// drawn by the style sheet, so it is not copied with the text.
function diffRows(pre, d, at) {
  let o = at ? at.old : 0, n = at ? at.new : 0;
  const row = (op, text, parts) => {
    const cls = op === "+" ? "add" : op === "-" ? "del" : "ctx";
    const r = el("span", { class: cls }, op + " ", parts || text, "\n");
    if (at) r.dataset.n = String(op === "-" ? o : n);
    if (op !== "+") o++;
    if (op !== "-") n++;
    pre.append(r);
  };
  for (let i = 0; i < d.length; i++) {
    const [op, line] = d[i];
    if (op === " ") {
      let j = i;
      while (j < d.length && d[j][0] === " ") j++;
      if (j - i > 6) {
        for (const [, l] of d.slice(i, i + 3)) row(" ", l);
        const skipped = j - i - 6;
        pre.append(el("span", { class: "fold" }, `  ⋯ ${plural(skipped, "unchanged line")}\n`));
        o += skipped; n += skipped;
        for (const [, l] of d.slice(j - 3, j)) row(" ", l);
        i = j - 1;
        continue;
      }
      row(" ", line);
      continue;
    }
    if (op === "-") {
      let j = i;
      while (j < d.length && d[j][0] === "-") j++;
      let k = j;
      while (k < d.length && d[k][0] === "+") k++;
      const dels = d.slice(i, j), adds = d.slice(j, k);
      const pair = dels.length === adds.length;
      dels.forEach(([, l], x) => row("-", l, pair ? wordMarks(l, adds[x][1], "-") : null));
      adds.forEach(([, l], x) => row("+", l, pair ? wordMarks(l, dels[x][1], "+") : null));
      i = k - 1;
      continue;
    }
    row("+", line);
  }
}

// editStart finds where an edit's new text begins in the file from the
// tool's result, when the result quotes the edited lines numbered as
// `cat -n` prints them ("    12→text"): {old, new}, else null.
function editStart(result, oldText, newText) {
  if (!result || result.is_error) return null;
  const first = String(newText || "").split("\n")[0];
  if (!first.trim()) return null;
  for (const m of String(result.content).matchAll(/^\s*(\d+)[→\t](.*)$/gm)) {
    if (m[2] === first) { const at = Number(m[1]); return { old: at, new: at }; }
  }
  return null;
}

// diffView renders an edit: the diff of its old and new text. result is
// the tool's result block, for the edit's line numbers and whether the
// tool applied it: an edit it refused is shown as not applied.
function diffView(oldText, newText, result) {
  const failed = !!(result && result.is_error);
  const pre = el("pre", { class: "diff" + (failed ? " not-applied" : "") });
  const at = editStart(result, oldText, newText);
  if (at) pre.classList.add("numbered");
  diffRows(pre, lineDiff(oldText || "", newText || ""), at);
  if (!failed) return pre;
  return el("div", { class: "edit-failed" }, el("p", { class: "not-applied-note" }, "Not applied: the tool refused this edit, so the file kept its old text. What was asked for:"), pre);
}

// patchView renders an apply_patch patch ("*** Begin Patch", a section
// per file, "@@" hunks): each file's name as a header, each hunk's lines
// as a diff with word marks, numbered where its "@@ -a,b +c,d @@" header
// gives the numbers.
function patchView(text) {
  const pre = el("pre", { class: "diff patch" });
  let hunk = [], at = null;
  const flush = () => { if (hunk.length) diffRows(pre, hunk, at); hunk = []; };
  for (const line of String(text).split("\n")) {
    let m;
    if (/^\*\*\* /.test(line)) {
      flush();
      if (!/^\*\*\* (Begin|End) Patch/.test(line)) pre.append(el("span", { class: "file" }, line.replace(/^\*\*\* /, "") + "\n"));
      at = null;
    } else if ((m = line.match(/^@@(?: -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@)?(.*)$/))) {
      flush();
      at = m[1] ? { old: Number(m[1]), new: Number(m[2]) } : null;
      if (at) pre.classList.add("numbered");
      pre.append(el("span", { class: "fold" }, line + "\n"));
    } else if (line.startsWith("+") || line.startsWith("-") || line.startsWith(" ")) {
      hunk.push([line[0], line.slice(1)]);
    } else if (line !== "") {
      flush();
      pre.append(el("span", { class: "ctx" }, line + "\n"));
    }
  }
  flush();
  return pre;
}

// hunksView draws hunks as the client recorded them: each with its
// header, its lines numbered as in the file.
function hunksView(hunks) {
  const pre = el("pre", { class: "diff numbered recorded" });
  for (const h of hunks) {
    pre.append(el("span", { class: "fold" }, `@@ -${h.old_start},${h.old_lines} +${h.new_start},${h.new_lines} @@\n`));
    diffRows(pre, h.lines.map((l) => [/^[-+]/.test(l) ? l[0] : " ", l.slice(1)]), { old: h.old_start, new: h.new_start });
  }
  return pre;
}

const patchURL = (result) => `/api/sessions/${encodeURIComponent(result.session_id)}/lines/${result.line}/patch`;

// recordedPatch asks for the hunks Claude Code recorded with an Edit's or
// a MultiEdit's result (structuredPatch: the file's lines around the
// edit, numbered as in the file, which "has been updated successfully"
// does not tell) and, when the line holds them, shows them in place of
// views, the diffs drawn from the edit's input. A refused edit, or a
// result without them, keeps its views.
function recordedPatch(tool, views, result) {
  if (!/^(Edit|MultiEdit)$/.test(tool) || !result || result.is_error || !result.line || !result.session_id || !views.length) return views;
  api("GET", patchURL(result)).then((data) => {
    if (!data.hunks || !data.hunks.length) return;
    views[0].replaceWith(hunksView(data.hunks));
    for (const v of views.slice(1)) v.remove();
  }, () => {});
  return views;
}

// writtenDiff shows a write over an existing file as a diff, in place of
// view (the whole text written): the hunks the client recorded with its
// result (Claude Code's Write over a file), else a diff against the text
// the session's earlier calls left in the file; a write the transcript
// knows no earlier text for keeps view, a new file.
function writtenDiff(path, text, view, use, result) {
  if (!path || !use || use.size || !result || result.is_error || !result.line || !result.session_id) return view;
  const q = new URLSearchParams({ path, round: use.round, index: use.index });
  api("GET", patchURL(result) + "?" + q).then((data) => {
    if (data.hunks && data.hunks.length) view.replaceWith(hunksView(data.hunks));
    else if (typeof data.previous === "string") view.replaceWith(el("div", { class: "written-over" }, el("p", { class: "muted" }, "Over the file as this session last wrote it:"), diffView(data.previous, text, null)));
  }, () => {});
  return view;
}
