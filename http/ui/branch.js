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
  return [row, b];
}

// placeBranch moves a round off the path under the round it forks from,
// after the branches already there, so that the rounds of the path read
// in order and each branch left hangs from its fork.
function placeBranch(tl, row, b) {
  let at = b.fork_line ? tl.querySelector(`.round[data-seq="${b.fork_round}"]`) : null;
  if (!at || at === row) return;
  while (at.nextElementSibling && at.nextElementSibling !== row && at.nextElementSibling.classList.contains("off-path") && Number(at.nextElementSibling.dataset.seq) < Number(row.dataset.seq)) at = at.nextElementSibling;
  at.after(row);
}
