// Package surgery restructures what of a session is active in context:
// compress-before, compress-engagement, extract-engagement, merge, split and
// inject, and revive (compress-before for a successor). Each operation is a
// pure function from stored rounds to a [cairn.Materialization]; the store is
// only read. Writers (the Claude Code exporter in package claudecode,
// Markdown and JSON in package export) turn a materialization into something
// an agent or a person reads.
//
// # Rounds and steps
//
// An operation chooses rounds: each is kept in full or replaced by its index
// line. Round 0 (what came before the first prompt) is never part of a
// materialization. Within a round kept in full, a [cairn.Fidelity] says how
// thinking, tool calls and tool results render; user and assistant text are
// always kept.
//
// A round is made of steps ([cairn.Steps]): an assistant turn with its tool
// calls and their results, never split. In autonomous sessions one round
// holds hundreds of steps, so a round may also be kept as its prompt, its
// last steps in full and an index of its earlier steps, one line a step
// ([cairn.Step.IndexLine]), in the spirit of the round index line: where it
// is, what it did, what came back:
//
//	7.12 Bash `go test ./...` → ok cairn 0.4s · Edit `store.go` → ok | "Tests pass."
//
// ROUND.STEP, then each call's tool with its key argument (the file path, the
// command, the pattern) and the first characters of its result ("error:" when
// it failed, "(no result)" when it never came), then the first characters of
// the step's text. The summary a resumed agent reads lists them under their
// round; `cairn inject SESSION 7.12` prints one step in full ([InjectRef]).
//
// # The client's compactions
//
// When Claude Code compacts a session (a compact_boundary line followed by
// its own summary), it sends only that summary and what follows the
// boundary. That is a materialization too, and every operation respects the
// compactions inside the rounds it keeps: rounds wholly before the last
// boundary become index lines, a round across it keeps its prompt and its
// post-boundary steps, and the client's summary is carried in cairn's,
// marked as the client's, with the range of steps it stands for named
// ([cairn.Compaction].StepsBefore) so `cairn inject` can bring any back
// ([Limits].BeforeCompaction: summary; index adds an index line per
// pre-boundary step; full brings them back). Operations that continue a
// session (compress-before, compress-engagement, revive) also carry the
// summary of a compaction in rounds they compressed.
//
// # Size and budget
//
// [Estimate] is the one estimate of what the client sends when it resumes an
// output: its own overhead (the system prompt and tools: Claude Code's read
// from the source's first request, Codex's a constant, as [Limits].Client
// says which resumes it), cairn's summary and the rounds kept in full,
// counted with [cairn.EstimateTokens]. [Resume] is what the client loads for
// the session as it is; advise, the CLI, the viewer and MCP show these
// figures. Every operation fits its output in [Limits].Budget (default half
// the model's window, see [Window]): over budget, rounds degrade oldest
// first, full → prompt, recent steps in full and the older ones left to the
// index (down to the last step) → partial fidelity → a row of the index
// table. No round and no step is ever left out: the layered index (rows →
// runs of steps → steps, [cairn.IndexEntry]) names every step the output
// does not hold, one line a step where its share of the budget allows, runs
// of the oldest steps (7.3-7.9, what they touched) where it does not, each
// run no larger than [RunLimit] (a quarter of the budget) so that `cairn
// inject SESSION 7.3-7.9` fits beside the output (an entry counts as one
// hop when its expansion is at most [HopLimit], half the budget); a row alone stands for a
// round that small. Operations that continue a session also carry a ledger
// ([cairn.Materialization].Ledger): the user's prompts, the latest todo
// list, errors not followed by a success of the same call, the files
// changed, the commands run with their outcome and what the agent stated,
// verbatim, each with the step it comes from, read off the session's
// structure within a fifth of the conversation's budget. The
// latest round keeps its prompt and its last step (the last answer) whatever
// happens, and its earlier steps go to the index first once the older
// rounds are rows. If even that does not fit, the operation refuses
// with the figures. Every round's blocks are read: the index and the ledger
// cover the whole session.
package surgery
