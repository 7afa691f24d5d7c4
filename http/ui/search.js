// The search page: hits as the reader types, filtered by harness, project,
// time, whose words or which part of a call, and tool; words in double
// quotes found as a phrase; paged, with how many there are.
"use strict";

// nearText is the words around a snippet's first match, letters and
// digits only, so the page can land on the match the snippet shows.
function nearText(snippet) {
  const m = snippet.querySelector("mark");
  if (!m) return "";
  const before = alnum(snippet.textContent.slice(0, snippet.textContent.indexOf(m.textContent)));
  const word = alnum(m.textContent);
  const after = alnum(snippet.textContent).slice(before.length + word.length);
  return before.slice(-12) + word + after.slice(0, 12);
}

// searchFilterKeys are the address's parameters that narrow a search.
const searchFilterKeys = ["agent", "role", "tool", "project", "since"];

// searchFilters narrows a search: by harness, by whose words or which
// part of a call (role), by tool, by project folder (the folder or,
// ending in / or *, those under it, as the CLI takes it), by time.
function searchFilters(params) {
  const choice = (name, label, options) => el("select", { name, "aria-label": label },
    options.map(([v, text]) => el("option", { value: v, selected: (params.get(name) || "") === v }, text)));
  const agent = choice("agent", "harness", [["", "every harness"], ["claude-code", "Claude Code"], ["codex", "Codex"], ["gemini", "Gemini CLI"], ["opencode", "opencode"]]);
  const role = choice("role", "in", [["", "anywhere"], ["user", "the user's words"], ["agent", "the agent's words"], ["call", "tool calls"], ["output", "tool output"]]);
  const form = el("form", { class: "filters", id: "search-filters" }, agent, role,
    el("input", { name: "tool", placeholder: "tool (Bash, Edit…)", value: params.get("tool") || "", "aria-label": "tool", size: 12 }),
    el("input", { name: "project", placeholder: "project folder, /… or …*", value: params.get("project") || "", "aria-label": "project folder" }),
    el("label", {}, "since ", el("input", { name: "since", type: "date", value: params.get("since") || "" })),
    el("button", { type: "submit" }, "Filter"));
  const go = (e) => {
    if (e) e.preventDefault();
    const p = new URLSearchParams({ q: params.get("q") || "" });
    for (const k of searchFilterKeys) if (form[k].value.trim()) p.set(k, form[k].value.trim());
    location.hash = "#/search?" + p;
  };
  form.addEventListener("submit", go);
  agent.addEventListener("change", () => go());
  role.addEventListener("change", () => go());
  return form;
}

// hitCount says how many hits there are: all of them once the last page
// is reached or the store counted them, "1,000+" past its count.
function hitCount(data, offset, last) {
  const n = (x) => x.toLocaleString("en");
  const total = data.total ? n(data.total) + (data.total_more ? "+" : "") : "";
  if (!data.more && !offset) return plural(data.total, "hit") + " ";
  if (!total) return `hits ${offset + 1}–${last} of more than ${last} · `;
  return `hits ${offset + 1}–${last} of ${total} · `;
}

// SearchPage is how many hits the search page shows at a time.
const SearchPage = 50;

async function searchPage(params) {
  const q = params.get("q") || "";
  const box = document.querySelector("#global-search input");
  if (document.activeElement !== box) box.value = q; // the reader may have typed on
  main.append(el("h1", {}, "Search"));
  if (!q) return main.append(el("p", { class: "empty" }, "Type words in the search box: every word must match; a word of three or more characters also matches the words it begins; words in double quotes (\"connection refused\") must be found one after the other. What users and agents wrote is searched, and the tools they called: commands, paths, output, errors."));
  main.append(searchFilters(params));
  const offset = Number(params.get("offset") || 0);
  const filters = new URLSearchParams();
  for (const k of searchFilterKeys) if (params.get(k)) filters.set(k, params.get(k));
  const data = await pageGet(`/api/search?limit=${SearchPage}&offset=${offset}&q=${encodeURIComponent(q)}${filters.toString() ? "&" + filters : ""}`);
  if (!data.hits.length) announce(offset ? `No more hits for ${q}.` : `No hits for ${q}.`);
  if (!data.hits.length) return main.append(el("p", { class: "empty", id: "no-hits" }, offset ? `No more hits for “${q}”: there are ${data.total}. ` : `No round matches “${q}”${filters.toString() ? " with these filters" : ""}.`, offset ? el("a", { href: "#/search?q=" + encodeURIComponent(q) }, "Back to the first") : ""));
  const list = el("div", { class: "hits", id: "hits" });
  for (const h of data.hits) {
    const snippet = el("div", { class: "snippet" });
    snippet.innerHTML = h.snippet_html; // escaped by the server, then marked
    const sub = h.lineage === "subagent";
    const href = `#/session/${encodeURIComponent(h.session_id)}?round=${h.round}${h.step ? "&step=" + h.step : ""}&find=${encodeURIComponent(q)}&near=${encodeURIComponent(nearText(snippet))}`;
    list.append(el("div", { class: "hit" + (sub ? " sub" : "") },
      el("div", { class: "hit-head" },
        sub ? agentBadge(h.agent_id, h.parent) : "",
        el("a", { href, class: "hit-title" }, h.title ? promptText(h.title) : short(h.session_id)),
        el("span", { class: "muted" }, ` · ${h.step ? "step" : "round"} ${h.ref || h.round} · ${when(h.timestamp)} · ${h.kind}${h.tool ? " " + h.tool : ""}`),
        h.project ? el("span", { class: "muted mono", title: h.project }, " · " + shortPath(h.project)) : "",
        el("span", { class: "muted mono" }, " · " + short(h.session_id))),
      snippet));
  }
  // The count says what is known: the total once the last page is
  // reached, else that there are more; pages go both ways.
  const last = offset + data.hits.length;
  const page = (o) => "#/search?q=" + encodeURIComponent(q) + (filters.toString() ? "&" + filters : "") + (o ? "&offset=" + o : "");
  const count = () => el("p", { class: "muted hit-count" },
    hitCount(data, offset, last),
    offset > 0 ? [el("a", { href: page(Math.max(0, offset - SearchPage)), class: "prev" }, `← previous ${SearchPage}`), " "] : "",
    data.more ? el("a", { href: page(last), class: "next" }, `next ${SearchPage} →`) : "");
  main.append(count(), list, count());
  announce(`${main.querySelector(".hit-count").textContent.replace(/ · .*$/, "").trim()} for ${q}. j and k move between them.`);
  document.title = `Search: ${q}${offset ? ` (from ${offset + 1})` : ""} · cairn`;
}
