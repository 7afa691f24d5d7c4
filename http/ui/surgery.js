// Surgery from the page: split, extract and revive previewed in words
// (what the new session keeps whole, in part, as index lines, and leaves
// out, how a split's parts make up the session) and in figures, then
// written, saying where.
"use strict";

// figuresLine says what an action keeps and what it costs: the size the
// CLI prints (what the client sends when it resumes it, against its
// budget), and what the client loads for the session today.
function figuresLine(r) {
  const budget = r.budget ? ` (budget ${human(r.budget)}, ${r.percent}%)` : " (no budget)";
  return `${plural(r.full, "round")} in full · ${plural(r.index, "index line")} · ~${human(r.tokens)} tokens the client sends${budget}; ~${human(r.source_tokens)} for the session today`;
}

// roundsText names rounds in words: "round 4", "rounds 1–3, 7".
const roundsText = (seqs) => seqs.length === 1 ? `round ${seqs[0]}` : `rounds ${ranges(seqs).replace(/-/g, "–").replace(/,/g, ", ")}`;

// capital starts a sentence with a capital letter.
const capital = (s) => s.charAt(0).toUpperCase() + s.slice(1);

// detailWords says what a fidelity does to one kind of block.
const detailWords = { full: "kept as is", reference: "named, not shown", summary: "summarized", omit: "left out" };

// leadSentence is the one sentence a preview starts with: what the action
// writes, and that the session itself is left as it is.
function leadSentence(action, results) {
  const n = results.length;
  if (action === "split") return `Cairn would write ${n} new sessions, one per part (${results.map((r) => `“${r.label}”`).join(", ")}); this session stays as it is.`;
  if (action === "extract") return `Cairn would write one new session holding the rounds tagged “${results[0].label || "the engagement"}”; this session stays as it is.`;
  return "Cairn would write one new session to resume in place of this one, its older work compressed; this session stays as it is.";
}

// planSentences says, in words, what one new session keeps of its
// source's rounds: whole, in part, as index lines, and what it leaves out.
function planSentences(r) {
  const p = r.plan;
  if (!p) return [];
  const out = [];
  const keep = [];
  if (p.whole.length) keep.push(`${roundsText(p.whole)} whole`);
  if (p.part.length) keep.push(`the prompt and the last steps of ${roundsText(p.part)} (the earlier steps as index lines)`);
  out.push(keep.length ? `It keeps ${keep.join(", and ")}.` : "It keeps no round in full.");
  if (p.indexed.length === 1) out.push(`${capital(roundsText(p.indexed))} becomes one index line: the agent sees what it did and can print it in full with cairn inject.`);
  else if (p.indexed.length) out.push(`${capital(roundsText(p.indexed))} become one index line each: the agent sees what each did and can print any of it in full with cairn inject.`);
  if (p.dropped) out.push(`${plural(p.dropped, "older round")} ${p.dropped === 1 ? "is" : "are"} only named in runs, to fit the budget (cairn rounds lists them).`);
  const named = p.whole.length + p.part.length + p.indexed.length + (p.dropped || 0);
  const left = Math.max(0, p.source_rounds - named);
  out.push(left ? `The other ${left === 1 ? "round" : plural(left, "round")} of this session ${left === 1 ? "is" : "are"} left out.` : "No round of this session is left out.");
  if (p.ledger) out.push(`Whatever the budget does, ${plural(p.ledger, "item")} ${p.ledger === 1 ? "is" : "are"} kept word for word: the prompts, the latest todo list, errors not yet fixed, the files changed.`);
  const f = p.fidelity || {};
  if ([f.thinking, f.tool_use, f.tool_result].some((d) => d && d !== "full")) {
    out.push(`In the rounds kept, thinking is ${detailWords[f.thinking] || f.thinking}, tool calls ${detailWords[f.tool_use] || f.tool_use}, their output ${detailWords[f.tool_result] || f.tool_result}.`);
  }
  return out;
}

// splitRelation says how a split's parts make up the session: each round
// in one part, or which are in several or in none.
function splitRelation(results) {
  const count = new Map();
  const part = [];
  for (const r of results) for (const s of [...r.plan.whole, ...r.plan.part]) count.set(s, (count.get(s) || 0) + 1);
  for (const r of results) part.push(...r.plan.part);
  const total = results[0].plan.source_rounds;
  const twice = [...count].filter(([, n]) => n > 1).map(([s]) => s);
  const none = [];
  for (let s = 1; s <= total; s++) if (!count.has(s)) none.push(s);
  if (!twice.length && !none.length) return `Together the ${results.length} parts hold each of this session's ${total} rounds once, ` + (part.length ? `${roundsText(part.sort((a, b) => a - b))} in part only.` : "in full.");
  return [twice.length ? `${capital(roundsText(twice))} ${twice.length === 1 ? "is" : "are"} in more than one part.` : "",
    none.length ? `${capital(roundsText(none))} ${none.length === 1 ? "is" : "are"} in no part.` : ""].filter(Boolean).join(" ");
}

// budgetWhy says where an action's budget came from, in the rule's own
// words (surgery.BudgetRule): one rule for every action, revive's
// included, which is lighter than the session only when the session is
// over it.
function budgetWhy(r) {
  if (!r.budget || !r.budget_rule) return "";
  const lead = r.operation === "revive"
    ? `Why ${human(r.budget)}: revive fits this budget, whatever the client loads today (~${human(r.source_tokens)}); it is lighter than that only when that is over the budget. The rule: `
    : `Budget ${human(r.budget)}, the default: `;
  return el("div", { class: "budget-why muted" }, lead + r.budget_rule + ".");
}

// showResults lists the sessions an action wrote, each with the command
// that resumes it and a button that copies it.
function showResults(title, results) {
  const box = el("div", { class: "result", id: "action-result" }, el("strong", {}, title));
  for (const r of results) {
    box.append(el("div", { class: "exported" },
      el("div", {}, r.label ? el("span", { class: "badge eng" }, r.label) : "", sessionLink(r.id, r.id), " · " + figuresLine(r)),
      r.path ? el("div", { class: "written" }, "Written to ", el("code", { class: "path" }, r.path)) : "",
      r.warning ? el("div", { class: "warning" }, "⚠ " + r.warning) : "",
      el("div", { class: "resume-line" }, el("pre", { class: "resume" }, r.resume), copyButton(r.resume))));
  }
  document.getElementById("results").replaceChildren(box);
  box.scrollIntoView({ block: "nearest" });
}

// surgery previews an action: what it would write and its token estimate,
// a warning when nothing would shrink, the child already written from the
// same rounds; Write then writes it and refreshes the lineage.
async function surgery(action, body, title) {
  const path = `/api/sessions/${encodeURIComponent(view.id)}/${action}`;
  const req = { ...body, fidelity: view.fidelity };
  let data;
  try { data = await api("POST", path, { ...req, preview: true }); }
  catch (err) { return toast(err.message, true); }
  const box = el("div", { class: "result preview", id: "action-preview" }, el("strong", {}, "Preview: " + title),
    el("p", { class: "plan-lead" }, leadSentence(action, data.results)),
    action === "split" && data.results.every((r) => r.plan) ? el("p", { class: "plan-relation" }, splitRelation(data.results)) : "");
  let existing = false;
  for (const r of data.results) {
    box.append(el("div", { class: "previewed" },
      r.label && data.results.length > 1 ? el("strong", { class: "plan-part" }, `“${r.label}”: `) : "",
      el("p", { class: "plan" }, planSentences(r).join(" ")),
      el("div", { class: "muted figures" }, figuresLine(r)),
      budgetWhy(r),
      r.warning ? el("div", { class: "warning" }, "⚠ " + r.warning) : "",
      r.existing ? el("div", { class: "warning existing" }, "Already written: ", sessionLink(r.existing, r.existing), ". Writing it again is refused; resume it:",
        el("div", { class: "resume-line" }, el("pre", { class: "resume" }, r.existing_resume), copyButton(r.existing_resume))) : ""));
    existing = existing || !!r.existing;
  }
  const write = el("button", { id: "preview-write", class: "primary", disabled: existing }, data.results.some((r) => r.warning) ? "Write anyway" : "Write");
  const cancel = el("button", { id: "preview-cancel" }, "Cancel");
  cancel.addEventListener("click", () => box.remove());
  write.addEventListener("click", async () => {
    write.disabled = true;
    try {
      const done = await api("POST", path, req);
      showResults(title, done.results);
      await refreshLineage();
    } catch (err) { write.disabled = false; toast(err.message, true); }
  });
  box.append(el("p", {}, write, " ", cancel));
  document.getElementById("results").replaceChildren(box);
  box.scrollIntoView({ block: "nearest" });
  if (action === "revive" && !body.before) keeps(box, write.parentElement);
}

// keeps adds to a revive's preview what cairn eval retention measures it
// keeps of the session, judged strictly: the same report the CLI prints.
async function keeps(box, before) {
  let rep;
  try { rep = await api("GET", `/api/sessions/${encodeURIComponent(view.id)}/retention`); }
  catch { return; }
  const s = (rep.scores || []).find((x) => x.variant === "revive");
  if (!s || !s.strict.probes) return;
  const pct = (n) => Math.round((100 * n) / s.strict.probes) + " %";
  box.insertBefore(el("div", { class: "keeps", id: "preview-keeps" },
    `Judged strictly (cairn eval retention, ${s.strict.probes} probes): ${pct(s.strict.in_context)} in context, ${pct(s.strict.one_hop)} one inject away, ${pct(s.strict.lost)} lost · ${s.reachable} of ${s.steps} steps reachable` +
    (s.continues ? " · the latest todo list and answer in context" : "")), before);
}

function splitSelection() {
  const name = document.getElementById("engagement").value.trim() || "selection";
  return surgery("split", { map: `${ranges(view.selected)}=${name}`, rest: "rest" }, `Split into ${name} and rest`);
}

function extract(engagement) {
  if (!engagement) return toast("Name the engagement to extract.", true);
  return surgery("extract", { engagement }, `Extracted ${engagement}`);
}

function revive() {
  const first = [...view.selected].sort((a, b) => a - b)[0];
  return surgery("revive", first !== undefined ? { before: String(first) } : {}, first !== undefined ? `Revived, rounds before ${first} as the index` : "Revived");
}
