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
// first, full → prompt, recent steps in full and an index line per older
// step (down to the last step) → partial fidelity → one index line → left
// out of the index table (counted in the summary). Steps come before
// partial fidelity because `cairn eval retention` measured that they keep
// more per token: an indexed step is one inject away, a partial summary
// names nothing. The
// latest round keeps its prompt and its last step (the last answer) whatever
// happens, and its earlier steps become index lines first once the older
// rounds are index lines. If even that does not fit, the operation refuses
// with the figures. Blocks are read newest round first and only as far back
// as the budget reaches, so a long session costs what its output holds.
package surgery
