// Renderers for what transcripts hold: markdown, terminal output, diffs and
// code. Each builds DOM nodes from text with textContent and createElement
// only: no string from a transcript is ever parsed as HTML.
"use strict";

// h builds an element with a class and children (strings become text).
function h(tag, cls, ...children) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

// safeHref returns url if it is an http(s) or mailto link, else "": a
// transcript cannot make a javascript: link.
function safeHref(url) {
  try {
    const u = new URL(url, location.href);
    return ["http:", "https:", "mailto:"].includes(u.protocol) ? u.href : "";
  } catch { return ""; }
}

// inline renders one line of markdown's inline syntax: `code`, **bold**,
// *em* / _em_, [text](url), <https://autolinks> and bare http(s) URLs
// (the punctuation that ends a sentence left out of the link).
function inline(text) {
  const out = [];
  const re = /(`+)([\s\S]*?)\1|\*\*([^*]+)\*\*|__([^_]+)__|\*([^*\s][^*]*)\*|\b_([^_\s][^_]*)_\b|\[([^\]]+)\]\(([^)\s]+)\)|<(https?:\/\/[^>\s]+)>|\b(https?:\/\/[^\s<>"'`]*[^\s<>"'`.,;:!?)\]])/g;
  let last = 0, m;
  while ((m = re.exec(text))) {
    if (m.index > last) out.push(text.slice(last, m.index));
    if (m[1]) out.push(h("code", "", m[2]));
    else if (m[3] || m[4]) out.push(h("strong", "", inline(m[3] || m[4])));
    else if (m[5] || m[6]) out.push(h("em", "", inline(m[5] || m[6])));
    else if (m[7]) {
      const href = safeHref(m[8]);
      if (href) { const a = h("a", "", inline(m[7])); a.href = href; a.rel = "noopener noreferrer"; a.target = "_blank"; out.push(a); }
      else out.push(m[0]);
    } else if (m[9] || m[10]) { const u = m[9] || m[10]; const a = h("a", "", u); a.href = safeHref(u); a.rel = "noopener noreferrer"; a.target = "_blank"; out.push(a); }
    last = re.lastIndex;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

// markdown renders the block-level markdown agents write: headings, fenced
// code, lists, quotes, tables, rules and paragraphs. HTML in the text stays
// text.
function markdown(src) {
  const root = h("div", "md");
  const lines = String(src).replace(/\r\n/g, "\n").split("\n");
  let i = 0;
  const isTableSep = (l) => /^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$/.test(l);
  const cells = (l) => l.trim().replace(/^\||\|$/g, "").split("|").map((c) => c.trim());
  while (i < lines.length) {
    const line = lines[i];
    let m;
    if (!line.trim()) { i++; continue; }
    if ((m = line.match(/^\s*(```+|~~~+)\s*([\w+#.-]*)/))) {
      const fence = m[1], lang = m[2];
      const body = [];
      i++;
      while (i < lines.length && !lines[i].trim().startsWith(fence)) body.push(lines[i++]);
      i++;
      root.append(codeBlock(body.join("\n"), lang));
      continue;
    }
    if ((m = line.match(/^(#{1,6})\s+(.*)$/))) {
      root.append(h("h" + Math.min(6, m[1].length + 2), "", inline(m[2])));
      i++;
      continue;
    }
    if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) { root.append(h("hr")); i++; continue; }
    if (line.includes("|") && i + 1 < lines.length && isTableSep(lines[i + 1])) {
      const table = h("table", "md-table");
      table.append(h("thead", "", h("tr", "", cells(line).map((c) => h("th", "", inline(c))))));
      const body = h("tbody");
      i += 2;
      while (i < lines.length && lines[i].includes("|") && lines[i].trim()) body.append(h("tr", "", cells(lines[i++]).map((c) => h("td", "", inline(c)))));
      table.append(body);
      root.append(table);
      continue;
    }
    if (/^\s*>/.test(line)) {
      const body = [];
      while (i < lines.length && /^\s*>/.test(lines[i])) body.push(lines[i++].replace(/^\s*>\s?/, ""));
      root.append(h("blockquote", "", markdown(body.join("\n"))));
      continue;
    }
    if ((m = line.match(/^(\s*)([-*+]|\d+[.)])\s+/))) {
      const ordered = /\d/.test(m[2]);
      const list = h(ordered ? "ol" : "ul");
      if (ordered && parseInt(m[2], 10) > 1) list.start = parseInt(m[2], 10);
      while (i < lines.length && (m = lines[i].match(/^(\s*)([-*+]|\d+[.)])\s+(.*)$/))) {
        let text = m[3];
        const box = text.match(/^\[([ xX])\]\s+(.*)$/);
        const li = h("li");
        if (box) { li.append(box[1] === " " ? "☐ " : "☑ "); text = box[2]; }
        li.append(...inline(text));
        i++;
        while (i < lines.length && /^\s{2,}\S/.test(lines[i]) && !/^\s*([-*+]|\d+[.)])\s+/.test(lines[i])) li.append(" ", ...inline(lines[i++].trim()));
        list.append(li);
      }
      root.append(list);
      continue;
    }
    const para = [];
    while (i < lines.length && lines[i].trim() && !/^(#{1,6}\s|\s*```|\s*~~~|\s*>|\s*([-*+]|\d+[.)])\s+)/.test(lines[i])) para.push(lines[i++]);
    if (!para.length) para.push(lines[i++]);
    const p = h("p");
    para.forEach((l, j) => { if (j) p.append(h("br")); p.append(...inline(l)); });
    root.append(p);
  }
  return root;
}

// ---- terminal output ----

const ansiColors = ["black", "red", "green", "yellow", "blue", "magenta", "cyan", "white"];

// ansi renders terminal output: SGR colours and bold become classes, every
// other escape sequence is dropped.
function ansi(text) {
  const pre = h("pre", "term");
  const re = /\x1b\[([0-9;]*)m|\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]|\r(?!\n)/g;
  let style = { fg: "", bg: "", bold: false, dim: false, under: false };
  let last = 0, m;
  const emit = (s) => {
    if (!s) return;
    const cls = [style.fg && "fg-" + style.fg, style.bg && "bg-" + style.bg, style.bold && "b", style.dim && "dim", style.under && "u"].filter(Boolean).join(" ");
    pre.append(cls ? h("span", cls, s) : document.createTextNode(s));
  };
  while ((m = re.exec(text))) {
    emit(text.slice(last, m.index));
    last = re.lastIndex;
    if (m[1] === undefined) continue;
    const codes = m[1] === "" ? [0] : m[1].split(";").map(Number);
    for (let j = 0; j < codes.length; j++) {
      const c = codes[j];
      if (c === 0) style = { fg: "", bg: "", bold: false, dim: false, under: false };
      else if (c === 1) style.bold = true;
      else if (c === 2) style.dim = true;
      else if (c === 4) style.under = true;
      else if (c === 22) style.bold = style.dim = false;
      else if (c === 24) style.under = false;
      else if (c >= 30 && c <= 37) style.fg = ansiColors[c - 30];
      else if (c >= 90 && c <= 97) style.fg = ansiColors[c - 90];
      else if (c === 39) style.fg = "";
      else if (c >= 40 && c <= 47) style.bg = ansiColors[c - 40];
      else if (c === 49) style.bg = "";
      else if (c === 38 || c === 48) j += codes[j + 1] === 5 ? 2 : 4; // 256 or RGB colours: dropped
    }
  }
  emit(text.slice(last));
  return pre;
}

// ---- code ----

const keywords = new Set(("break case catch class const continue def default defer delete do elif else enum export extends false " +
  "finally fn for from func function go if impl import in interface let match mod mut nil none null package pub raise range " +
  "return self select static struct super switch this throw true try type typeof var void while with yield async await lambda " +
  "not and or is as None True False").split(" "));

// plainLangs are the fence languages that are not code.
const plainLangs = /^(text|txt|plain|plaintext|md|markdown|output|console|log|none|diff)$/i;

// highlight colours code: comments, strings, numbers and common keywords
// of C-like languages, Go, Python, shell and friends.
function highlight(code, lang) {
  const pre = h("pre", "code" + (lang ? " lang-" + lang.replace(/[^\w-]/g, "") : ""));
  const hash = /^(py|python|sh|bash|shell|zsh|rb|ruby|yaml|yml|toml|make|dockerfile|r|pl|conf|ini)$/i.test(lang || "");
  const re = hash
    ? /(#[^\n]*)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|\b(\d[\d_.xa-fA-F]*)\b|\b([A-Za-z_]\w*)\b/g
    : /(\/\/[^\n]*|\/\*[\s\S]*?\*\/|<!--[\s\S]*?-->)|("(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|`[^`]*`)|\b(\d[\d_.xa-fA-F]*)\b|\b([A-Za-z_]\w*)\b/g;
  let last = 0, m;
  const text = String(code);
  // Code of no known language (a fence without one, prose, output) is
  // left plain: "for", "in", "is" in English are not keywords.
  if (text.length > 200000 || !lang || plainLangs.test(lang)) { pre.textContent = text; return pre; }
  while ((m = re.exec(text))) {
    if (m[4] && !keywords.has(m[4])) continue;
    if (m.index > last) pre.append(text.slice(last, m.index));
    pre.append(h("span", m[1] ? "tok-c" : m[2] ? "tok-s" : m[3] ? "tok-n" : "tok-k", m[0]));
    last = re.lastIndex;
  }
  pre.append(text.slice(last));
  return pre;
}

// langOf names the language of a file by its extension.
function langOf(path) {
  const m = String(path || "").match(/\.([A-Za-z0-9]+)$/);
  return m ? m[1].toLowerCase() : /(^|\/)(Makefile|Dockerfile)$/.test(path || "") ? "make" : "";
}

// codeBlock is a block of code with its language and a button that
// copies it.
function codeBlock(code, lang) {
  const box = h("div", "codebox");
  if (lang) box.append(h("span", "lang", lang));
  box.append(copyButton(code, { label: "Copy", class: "copy-code", title: "copy the code" }), highlight(code, lang));
  return box;
}

// readOutput strips the "   12→" line numbers Claude Code's Read prints,
// returning the code and the first line's number.
function readOutput(text) {
  const lines = String(text).split("\n");
  const num = /^\s*(\d+)[→\t]/;
  if (!lines.length || !num.test(lines[0])) return { code: text, first: 0 };
  const first = Number(lines[0].match(num)[1]);
  return { code: lines.map((l) => l.replace(num, "")).join("\n"), first };
}

// ---- what the client wraps in tags, and escapes ----

// stripAnsi drops terminal escape sequences, for text shown on one line.
const stripAnsi = (s) => String(s).replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[()][A-Z0-9]/g, "");

// hasAnsi reports whether s holds a terminal escape sequence.
const hasAnsi = (s) => /\x1b[[\]()]/.test(s);

// slashCommand reads the tags Claude Code writes for a slash command
// (<command-name>, <command-message>, <command-args>) and for a local
// command's output (<local-command-stdout>), returning what the user typed
// or saw: {command, args} or {stdout}; null for other text.
function slashCommand(text) {
  const s = String(text || "");
  const tag = (name) => { const m = s.match(new RegExp(`<${name}>([\\s\\S]*?)</${name}>`)); return m ? m[1].trim() : null; };
  const name = tag("command-name");
  if (name !== null) {
    const rest = s.replace(/<(command-name|command-message|command-args)>[\s\S]*?<\/\1>/g, "").trim();
    return { command: name.startsWith("/") ? name : "/" + name, args: [tag("command-args") || "", rest].filter(Boolean).join("\n") };
  }
  const out = tag("local-command-stdout") ?? tag("local-command-stderr");
  if (out !== null && /^\s*<local-command-std(out|err)>/.test(s)) return { stdout: out };
  return null;
}

// promptText is a prompt as one line of the timeline: a slash command as
// the user typed it, escapes dropped.
function promptText(text) {
  const c = slashCommand(text);
  if (c && c.command) return (c.command + " " + c.args).trim();
  if (c) return stripAnsi(c.stdout);
  return stripAnsi(text);
}

// ---- long texts ----

// Texts longer than clampChars characters or clampLines lines show their
// head; "Show more" adds as much again, "Show all" the rest.
const clampChars = 20000, clampLines = 400;

// clampAt is where text's shown head ends after shown characters: at most
// that many characters and clampLines lines more.
function clampAt(text, shown) {
  let end = Math.min(text.length, shown);
  let nl = -1;
  for (let i = 0, at = 0; i < clampLines * Math.max(1, Math.ceil(shown / clampChars)); i++) {
    nl = text.indexOf("\n", at);
    if (nl < 0 || nl >= end) return end;
    at = nl + 1;
  }
  return Math.min(end, nl);
}

// clamped renders text with render, cut to its head when it is long, with
// buttons that show more of it. The box keeps the whole text (clampFull)
// so that finding words opens it where they are (unclampMatching).
function clamped(text, render) {
  text = String(text);
  const end = clampAt(text, clampChars);
  if (end >= text.length) return render(text);
  const box = h("div", "clamped");
  box.clampFull = text;
  const show = (n) => {
    const at = n >= text.length ? text.length : clampAt(text, n);
    box.clampShown = at;
    const parts = [render(text.slice(0, at))];
    if (at < text.length) {
      const more = h("button", "show-more", `Show more (${human(text.length - at)} more characters)`);
      more.addEventListener("click", (e) => { e.stopPropagation(); show(at + clampChars); });
      const all = h("button", "show-all", `Show all ${human(text.length)}`);
      all.addEventListener("click", (e) => { e.stopPropagation(); show(text.length); });
      parts.push(h("div", "clamp-bar muted", `${human(at)} of ${human(text.length)} characters shown `, more, " ", all));
    }
    box.replaceChildren(...parts);
  };
  box.clampRender = show;
  show(clampChars);
  return box;
}

// unclampMatching shows in full the clamped texts under root whose hidden
// part re matches, so that a find lands on the words wherever they are.
function unclampMatching(root, re) {
  for (const box of root.querySelectorAll(".clamped")) {
    re.lastIndex = 0;
    const rest = box.clampFull.slice(box.clampShown);
    if (re.test(rest)) box.clampRender(box.clampFull.length);
  }
  re.lastIndex = 0;
}
