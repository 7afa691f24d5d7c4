// Package cairn is a context manager for AI agents: it keeps everything an
// agent did in a durable store and lets the agent, or the person steering it,
// choose which materialization of that history is active in context.
//
// This root package holds the domain types and the small per-noun store
// interfaces. It imports only the standard library; adapters (sqlite,
// claudecode) implement or produce these types, operations (inscribe,
// surgery, assemble) depend only on them, and the edges (cmd/cairn, mcp,
// http) choose the concrete adapters.
//
// # Vocabulary
//
//   - A [Line] is one raw line of a transcript, kept verbatim. Lines are the
//     block store: append-only, the source of truth.
//   - A [Block] is one typed piece of a line: user text, assistant text,
//     thinking, a tool call or a tool result.
//   - A [Round] is one real user message plus everything the agent produced
//     before the next real user message. Rounds are never split.
//   - A [Step] is one assistant turn inside a round: one assistant message
//     with its tool calls and the results that answer them. A call and its
//     result are never in different steps. [Steps] splits a round's blocks;
//     [Step.IndexLine] is a step's index line (tool, key argument, first
//     characters of the result, the text), the seed's index line one level
//     down.
//   - A [Session] is one agent conversation with its lineage.
//
// # Invariants
//
// Importing a transcript twice changes nothing; importing a grown transcript
// reads only the new bytes. Rounds, blocks and the search index are an index
// over the lines and can be rebuilt from them at any time.
package cairn
