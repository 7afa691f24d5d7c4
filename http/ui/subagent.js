// Subagents in place: a call that ran a subagent (Claude Code's Task and
// Agent) shows the subagent's own session inside the call, opened on
// demand, with a link to it; one whose transcript the store does not hold
// says so instead of linking to a page that is not there.
//
// The store links a subagent to its parent: the subagent's session names
// the parent (Session.Parent) and the agent id the parent's tool result
// reports (Session.AgentID = Block.AgentID), and GET /api/sessions/{id}
// lists it among the parent's children.
"use strict";

// subagentOf is the open session's child that the call whose result is
// result ran, or null.
function subagentOf(result) {
  if (!result || !result.agent_id || !view || !view.children) return null;
  return view.children.find((c) => c.lineage === "subagent" && c.agent_id === result.agent_id) || null;
}

// Rounds of a subagent shown in place at most: a longer one is a link
// away.
const subagentRounds = 5;

// subagentView is what an agent call says of its subagent: its session
// in place (collapsed, loaded when opened) and a link to it, or why there
// is none.
function subagentView(result) {
  if (!result) return el("p", { class: "muted subagent-none" }, "No result in this round, so no subagent to show.");
  if (!result.agent_id) return el("p", { class: "muted subagent-none" }, "The transcript names no subagent session for this call.");
  const child = subagentOf(result);
  if (!child) {
    return el("p", { class: "subagent-missing" }, `The subagent's transcript (agent ${result.agent_id}) was not imported, so there is nothing to open: ` +
      "its file was not beside the session's when it was imported, or was left out.");
  }
  const href = "#/session/" + encodeURIComponent(child.id);
  const label = `the subagent's session · ${plural(child.rounds, "round")}` + (child.usage ? ` · ${human(sessionTokens(child.usage))} tokens` : "");
  const box = el("details", { class: "subagent-inline", dataset: { id: child.id } }, el("summary", {}, label));
  let loaded = false;
  box.addEventListener("toggle", async () => {
    if (!box.open || loaded) return;
    loaded = true;
    const body = el("div", { class: "subagent-body" }, el("span", { class: "muted" }, "Loading…"));
    box.append(body);
    try {
      body.replaceChildren(...await subagentBody(child));
    } catch (err) {
      body.replaceChildren(el("span", { class: "error" }, err.message));
    }
  });
  return el("div", { class: "subagent" }, box, el("a", { class: "subagent-link", href }, "open the subagent's session →"));
}

// subagentBody renders a subagent's first rounds as a round is rendered,
// their steps apart from the parent's (sub-step: the parent's step
// numbers, keys and the address do not count them).
async function subagentBody(child) {
  const id = encodeURIComponent(child.id);
  const list = await api("GET", `/api/sessions/${id}/rounds?from=0&limit=${subagentRounds + 1}`);
  const numbered = list.rounds.filter((r) => r.seq > 0);
  const rounds = (numbered.length ? numbered : list.rounds).slice(0, subagentRounds);
  const out = [];
  for (const r of rounds) {
    const data = withSteps(await api("GET", `/api/sessions/${id}/rounds/${r.seq}`));
    const prompt = data.promptBlocks.filter(visible);
    if (prompt.length) out.push(el("div", { class: "prompt" }, blocksView(prompt, null)));
    for (const s of data.steps) {
      const sec = stepView(s);
      sec.classList.replace("step", "sub-step");
      out.push(sec);
    }
  }
  if (child.rounds > rounds.length) out.push(el("a", { class: "muted", href: "#/session/" + id }, `${child.rounds - rounds.length} more rounds in the subagent's session →`));
  if (!out.length) out.push(el("span", { class: "muted" }, "(the subagent's session holds no blocks)"));
  return out;
}
