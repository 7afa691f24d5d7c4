// A pi session's branches left (pi's /tree resumes from another leaf):
// rounds off the path the session resumes from, marked and moved under
// the round each forks from, so that the path reads in order.
"use strict";

// branchRow marks a round's row as a branch left (b, from
// /api/sessions/{id}/branches): off the path the session resumes from,
// wholly or from one of its lines, with where it forks.
function branchRow(row, b) {
  row.classList.add(b.whole ? "off-path" : "off-tail");
  const from = b.fork_line ? `round ${b.fork_round}, line ${b.fork_line}` : "the session's beginning";
  const badge = el("span", { class: "badge branch", title: `not on the path the session resumes from: it forks from ${from}` },
    b.whole ? `↳ branch left · from round ${b.fork_line ? b.fork_round : "start"}` : `↳ ends in a branch left, line ${b.first_line} on`);
  row.querySelector(".tags").prepend(badge);
}

// drawBranches draws the timeline's rows as the tree branches (round →
// branch) says: each round off the path marked, each one wholly off it
// under the round it forks from, after the branches already there, every
// other row in round order. It is drawn again whenever the session grows
// (a branch left later turns rounds of the path into one), and moves only
// the rows out of place, so that open rounds stay as they are.
function drawBranches(tl, branches) {
  const seq = (row) => Number(row.dataset.seq);
  const order = [...tl.querySelectorAll(":scope > .round")].sort((a, b) => seq(a) - seq(b));
  for (const row of order) {
    row.classList.remove("off-path", "off-tail");
    const old = row.querySelector(".tags > .badge.branch");
    if (old) old.remove();
    const b = branches.get(seq(row));
    if (b) branchRow(row, b);
  }
  for (const row of [...order]) {
    const b = branches.get(seq(row));
    if (!b || !b.whole || !b.fork_line) continue;
    order.splice(order.indexOf(row), 1);
    let at = order.findIndex((r) => seq(r) === b.fork_round);
    if (at < 0) at = order.findLastIndex((r) => seq(r) < seq(row)); // its fork is not loaded: where it was
    else while (at + 1 < order.length && order[at + 1].classList.contains("off-path") && seq(order[at + 1]) < seq(row)) at++;
    order.splice(at + 1, 0, row);
  }
  let prev = null;
  for (const row of order) {
    if ((prev ? prev.nextElementSibling : tl.firstElementChild) !== row) prev ? prev.after(row) : tl.prepend(row);
    prev = row;
  }
}
