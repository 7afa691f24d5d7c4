package surgery_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/surgery"
)

// TestCompressFrames collapses the compact session's finished frames: round
// 1 was worked under a completed frame and becomes its entry (title,
// results, compaction); round 2 under a failed one, likewise; round 3, under
// the frame in progress, holds the client's /compact and nothing after its
// boundary, so it is an index line whose compaction summary the last round
// (in full) carries: the client had compacted it.
func TestCompressFrames(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	for _, tag := range []struct {
		seq   int
		frame string
	}{{1, "auth"}, {2, "db"}, {3, "bench"}} {
		if err := st.tags.TagRounds(ctx, compact, []int{tag.seq}, "work", tag.frame); err != nil {
			t.Fatal(err)
		}
	}
	frames := []*cairn.Frame{
		{ID: "auth", Title: "Auth", SuccessCriteria: "tokens checked", Status: cairn.FrameCompleted,
			Results: "AUTH-RESULTS: JWT with refresh tokens", ResultsCompacted: "JWT auth done"},
		{ID: "db", Title: "Migration", SuccessCriteria: "sessions table", Status: cairn.FrameFailed, Results: "the host has no FTS5"},
		{ID: "bench", Title: "Benchmark", SuccessCriteria: "a baseline", Status: cairn.FrameInProgress},
	}
	m, err := surgery.CompressFrames(ctx, st.Store, compact, frames, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	var full, index []int
	for _, p := range m.Pieces {
		if !p.Full {
			index = append(index, p.Round.Seq)
			continue
		}
		full = append(full, p.Round.Seq)
		if p.Compaction == nil {
			t.Errorf("round %d in full does not carry the client's compaction summary", p.Round.Seq)
		}
	}
	if len(index) != 1 || index[0] != 3 {
		t.Errorf("rounds as index lines %v, want [3]: the client compacted round 3", index)
	}
	if got := len(m.Collapsed); got != 2 || m.Collapsed[0].Frame.ID != "auth" || m.Collapsed[1].Frame.ID != "db" ||
		len(m.Collapsed[0].Rounds) != 1 || m.Collapsed[0].Rounds[0] != 1 || m.Collapsed[0].Tokens == 0 {
		t.Fatalf("collapsed %+v", m.Collapsed)
	}
	if len(full) != 1 || full[0] != 4 {
		t.Fatalf("rounds in full %v, want [4]", full)
	}
	summary := surgery.Summary(m)
	for _, want := range []string{`Frame auth "Auth" (completed) · rounds 1 of session`, "Results: AUTH-RESULTS: JWT with refresh tokens",
		"Compaction: JWT auth done", `Frame db "Migration" (failed)`, "cairn inject SESSION ROUND"} {
		if !strings.Contains(summary, want) {
			t.Errorf("summary lacks %q:\n%s", want, summary)
		}
	}
	var md bytes.Buffer
	if err := export.MaterializationMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	compare(t, "compress-frames-compact.md", md.Bytes())
	x := &claudecode.Exporter{SessionID: newSessionID, Summary: summary, NewUUID: counter("compress-frames")}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := claudecode.CheckResumable(newSessionID, lines); err != nil {
		t.Fatalf("not resumable: %v", err)
	}
	compare(t, "compress-frames-compact.jsonl", bytes.Join(lines, nil))

	// Nothing finished: nothing to collapse.
	frames[0].Status, frames[1].Status = cairn.FrameInProgress, cairn.FrameBlocked
	if _, err := surgery.CompressFrames(ctx, st.Store, compact, frames, cairn.FullFidelity); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Fatalf("no finished frame: %v", err)
	}

	// What pop says: the rounds of a frame in a session and what they hold.
	c, err := surgery.CollapseOf(ctx, st.Store, "", "auth")
	if err != nil || c == nil || c.Session != compact || len(c.Rounds) != 1 || c.Tokens != m.Collapsed[0].Tokens {
		t.Fatalf("collapse of auth: %+v, %v", c, err)
	}
	if !strings.Contains(c.String(), "cairn compress-frames "+compact) {
		t.Errorf("pop's line: %s", c)
	}
	if c, err := surgery.CollapseOf(ctx, st.Store, tools, "auth"); err != nil || c != nil {
		t.Fatalf("auth has no rounds in %s: %+v, %v", tools, c, err)
	}
}

// TestFinishedWeight: the share rule. Finished frames' rounds count
// against what the client holds; a frame still open, the last round and
// rounds the client compacted away do not; collapsing pays from
// CollapseShare on. ReviveFrames then collapses them within revive's
// budget.
func TestFinishedWeight(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	const id = "7e570003-0000-4000-8000-000000000003"
	big := strings.Repeat("finished work ", 6000) // a third of what the client loads with its overhead
	mustImport(t, st, writeSession(t, id,
		"user", "Round one: build the parser.",
		"assistant", []any{map[string]any{"type": "text", "text": big}},
		"user", "Round two: the lexer.",
		"assistant", []any{map[string]any{"type": "text", "text": "Lexer done."}},
		"user", "Round three: and now?",
		"assistant", []any{map[string]any{"type": "text", "text": "Next."}},
	))
	for _, tag := range []struct {
		seq   int
		frame string
	}{{1, "parser"}, {2, "lexer"}, {3, "parser"}} {
		if err := st.tags.TagRounds(ctx, id, []int{tag.seq}, "work", tag.frame); err != nil {
			t.Fatal(err)
		}
	}
	frames := []*cairn.Frame{
		{ID: "parser", Title: "Parser", Status: cairn.FrameCompleted, Results: "PARSER-RESULTS"},
		{ID: "lexer", Title: "Lexer", Status: cairn.FrameInProgress},
	}
	w, err := surgery.FinishedWeight(ctx, st.Store, id, frames, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(w.Frames) != 1 || w.Frames[0] != "parser" || w.Rounds != 1 || w.Tokens < 20000 || w.Held <= w.Tokens {
		t.Fatalf("weight %+v: want round 1 of parser only (round 3 is the last, lexer is open)", w)
	}
	if !w.Pays() {
		t.Errorf("%d%% of what the client loads (%+v) does not pay", w.Percent(), w)
	}
	for _, c := range []struct {
		tokens, held int64
		pays         bool
	}{{250, 1000, true}, {249, 1000, false}, {10, 0, false}} {
		if got := (&surgery.FramesWeight{Frames: []string{"a"}, Tokens: c.tokens, Held: c.held}).Pays(); got != c.pays {
			t.Errorf("%d of %d tokens: pays %v, want %v", c.tokens, c.held, got, c.pays)
		}
	}
	w, err = surgery.FinishedWeight(ctx, st.Store, id, frames, w.Tokens*10)
	if err != nil || w.Pays() {
		t.Errorf("a tenth of what the client holds pays: %+v %v", w, err)
	}

	m, err := surgery.ReviveFrames(ctx, st.Store, id, frames, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	if m.Operation != cairn.OpRevive || len(m.Collapsed) != 1 || !strings.Contains(surgery.Summary(m), "PARSER-RESULTS") {
		t.Errorf("revive with frames: %s, %d collapsed:\n%s", m.Operation, len(m.Collapsed), surgery.Summary(m))
	}
	orig, err := surgery.Resume(ctx, st.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	if surgery.Estimate(m) >= surgery.Estimate(orig) {
		t.Errorf("the collapsed revive (%d tokens) is not lighter than the session (%d)", surgery.Estimate(m), surgery.Estimate(orig))
	}

	// The compact sample's finished frames lie before its compaction: the
	// client no longer loads them, and they weigh nothing.
	if err := st.tags.TagRounds(ctx, compact, []int{1}, "work", "parser"); err != nil {
		t.Fatal(err)
	}
	w, err = surgery.FinishedWeight(ctx, st.Store, compact, frames, 0)
	if err != nil || w.Tokens != 0 || w.Pays() {
		t.Errorf("rounds before the client's compaction weigh: %+v %v", w, err)
	}
}

// TestCompressFrames_Steps (issue #42, 2a): a frame pushed and popped
// inside one prompt's work, the round's first four steps, stands for
// those steps: the round keeps its prompt and the answer after the pop,
// the summary the frame's results with the steps' refs, and the frame
// weighs what the steps held. The Claude Code export holds the results,
// not the steps, and is resumable.
func TestCompressFrames_Steps(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	const id = "7e570042-0000-4000-8000-00000000002a"
	call := func(id, tool string, input map[string]any) map[string]any {
		return map[string]any{"type": "tool_use", "id": id, "name": tool, "input": input}
	}
	result := func(id, text string) []any {
		return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": text}}
	}
	mustImport(t, st, writeSession(t, id,
		"user", "Round one: look around.",
		"assistant", []any{map[string]any{"type": "text", "text": "Looked: a parser is missing."}},
		"user", "Round two: add the parser, in a frame of its own.",
		"assistant", []any{map[string]any{"type": "text", "text": "Pushing a frame for it."}, call("t1", "Bash", map[string]any{"command": "cairn push parser 'Parser' --criteria 'tests pass'"})},
		"user", result("t1", "pushed parser"),
		"assistant", []any{call("t2", "Write", map[string]any{"file_path": "/tmp/p/parser.go", "content": strings.Repeat("// STEP-WORK parser code\n", 400)})},
		"user", result("t2", "File created successfully at: /tmp/p/parser.go"),
		"assistant", []any{call("t3", "Bash", map[string]any{"command": "go test ./..."})},
		"user", result("t3", "ok  	p	0.01s"),
		"assistant", []any{call("t4", "Bash", map[string]any{"command": "cairn pop --results 'PARSER-RESULTS: parser.go, tests pass'"})},
		"user", result("t4", "popped parser"),
		"assistant", []any{map[string]any{"type": "text", "text": "The parser is in and its tests pass."}},
		"user", "Round three: and now?",
		"assistant", []any{map[string]any{"type": "text", "text": "Next: the lexer."}},
	))
	at := func(s int) time.Time { return time.Date(2026, 3, 19, 10, 0, s, 0, time.UTC) }
	frames := []*cairn.Frame{{ID: "parser", Title: "Parser", SuccessCriteria: "tests pass", Status: cairn.FrameCompleted, SessionID: id,
		Results: "PARSER-RESULTS: parser.go, tests pass", StartedAt: at(7), EndedAt: at(19)}}
	m, err := surgery.CompressFrames(ctx, st.Store, id, frames, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Collapsed) != 1 || len(m.Collapsed[0].Rounds) != 0 || len(m.Collapsed[0].Steps) != 1 || m.Collapsed[0].Steps[0] != "2.1-2.4" || m.Collapsed[0].Tokens < 2000 {
		t.Fatalf("collapsed %+v, want steps 2.1-2.4 of parser", m.Collapsed[0])
	}
	summary := surgery.Summary(m)
	if !strings.Contains(summary, `Frame parser "Parser" (completed) · steps 2.1-2.4 of session `+id) || !strings.Contains(summary, "PARSER-RESULTS") {
		t.Errorf("the summary does not stand the frame for its steps:\n%s", summary)
	}
	var md bytes.Buffer
	if err := export.MaterializationMarkdown(&md, m); err != nil {
		t.Fatal(err)
	}
	compare(t, "compress-frames-steps.md", md.Bytes())
	x := &claudecode.Exporter{SessionID: newSessionID, Summary: summary, NewUUID: counter("compress-frames-steps")}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := claudecode.CheckResumable(newSessionID, lines); err != nil {
		t.Fatalf("not resumable: %v", err)
	}
	out := bytes.Join(lines, nil)
	compare(t, "compress-frames-steps.jsonl", out)
	for _, gone := range []string{"STEP-WORK", "Pushing a frame", "go test ./...", "popped parser"} {
		if bytes.Contains(out, []byte(gone)) {
			t.Errorf("the export still holds the frame's step %q", gone)
		}
	}
	for _, kept := range []string{"Round two: add the parser", "The parser is in and its tests pass.", "Next: the lexer."} {
		if !bytes.Contains(out, []byte(kept)) {
			t.Errorf("the export lost %q", kept)
		}
	}

	w, err := surgery.FinishedWeight(ctx, st.Store, id, frames, 0)
	if err != nil || len(w.Frames) != 1 || w.Steps != 4 || w.Rounds != 0 || w.Tokens < 2000 || w.Where() != "4 steps" {
		t.Fatalf("weight %+v, %v: want parser's 4 steps", w, err)
	}
	r, err := surgery.ReviveFrames(ctx, st.Store, id, frames, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	orig, err := surgery.Resume(ctx, st.Store, id)
	if err != nil {
		t.Fatal(err)
	}
	if surgery.Estimate(r) >= surgery.Estimate(orig)-2000 {
		t.Errorf("the collapsed revive (%d tokens) does not drop the frame's steps from the session (%d)", surgery.Estimate(r), surgery.Estimate(orig))
	}
}
