// Package conformance holds the suite every direction of a surgical export
// passes: a session of each harness (Claude Code, Codex, Gemini CLI,
// opencode, pi) cut by each operation (compress-before, revive fitted so
// that a round is kept only in part, extract, merge), written for each of
// the five clients, resumed by the real client offline against [fakeapi], and the
// request the client sends checked:
//
//   - each kept round's prompt is a user message of its own (the first may
//     share cairn's summary's), in the rounds' order, before its answer;
//   - every kept step (answer texts, tool results) is there, in order;
//   - every tool call is answered and every result answers a call;
//   - no two user messages in a row where the API forbids it (the
//     Messages API);
//   - cairn's summary is there whole, and names every step and round left
//     out.
//
// A corner of the matrix runs by default (every direction once, every
// operation, both ends of each client's range); CAIRN_CONFORMANCE=full runs
// all of it. The tests are in conformance_test.go.
package conformance
