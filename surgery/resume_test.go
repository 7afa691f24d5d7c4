package surgery_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	"github.com/cairn-dev/cairn/surgery"
)

// exportLines exports m as the Claude Code session newSessionID and checks
// it is resumable.
func exportLines(t *testing.T, m *cairn.Materialization) [][]byte {
	t.Helper()
	x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m), NewUUID: counter(t.Name())}
	lines, err := x.Lines(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := claudecode.CheckResumable(newSessionID, lines); err != nil {
		t.Fatal(err)
	}
	return lines
}

type exportedLine struct {
	Type        string `json:"type"`
	UUID        string `json:"uuid"`
	Timestamp   string `json:"timestamp"`
	CairnSource *struct {
		SessionID string `json:"sessionId"`
	} `json:"cairnSource"`
	Message *struct {
		ID      string          `json:"id"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

func decodeLines(t *testing.T, lines [][]byte) []exportedLine {
	t.Helper()
	out := make([]exportedLine, len(lines))
	for i, raw := range lines {
		if err := json.Unmarshal(raw, &out[i]); err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
	}
	return out
}

// At text fidelity the tool calls between a round's assistant turns are
// gone: the turns left side by side must reach the client as one assistant
// message, not two in a row (the API wants roles to alternate).
func TestExport_TextFidelityOneAssistantMessage(t *testing.T) {
	st := mustOpenSamples(t)
	text, _ := cairn.ParseFidelity("text")
	for _, session := range []string{tools, compact, resumed} {
		m, err := surgery.Select(context.Background(), st.Store, session, keepAll, text)
		if err != nil {
			t.Fatal(err)
		}
		prev := ""
		for i, l := range decodeLines(t, exportLines(t, m)) {
			switch {
			case l.Type == "user":
				prev = ""
			case l.Type == "assistant":
				if prev != "" && l.Message.ID != prev {
					t.Errorf("%s line %d: assistant message %s right after assistant message %s", session[:8], i+1, l.Message.ID, prev)
				}
				prev = l.Message.ID
			}
		}
	}
}

// writeSession writes a Claude Code session of the given messages (role,
// content) as a chain of lines and returns its path.
func writeSession(t *testing.T, id string, msgs ...any) string {
	t.Helper()
	var b strings.Builder
	parent := "null"
	for i := 0; i < len(msgs); i += 2 {
		role := msgs[i].(string)
		uuid := fmt.Sprintf("%s-0000-4000-8000-%012d", id[:8], i)
		msg := map[string]any{"role": role, "content": msgs[i+1]}
		if role == "assistant" {
			msg["id"] = fmt.Sprintf("msg_%d", i)
		}
		raw, _ := json.Marshal(msg)
		fmt.Fprintf(&b, `{"parentUuid":%s,"isSidechain":false,"type":%q,"message":%s,"uuid":%q,"timestamp":"2026-03-19T10:00:%02d.000Z","sessionId":%q,"cwd":"/tmp/p","version":"2.1.330"}`+"\n",
			parent, role, raw, uuid, i, id)
		parent = `"` + uuid + `"`
	}
	path := filepath.Join(t.TempDir(), id+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func toolUse(id string) []any {
	return []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]string{"command": "ls"}}}
}

func toolResult(id string) []any {
	return []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": "a.go b.go"}}
}

// A round that ends on a tool result (an autonomous run stopped between two
// calls) is resumable: extract-engagement and split keep it, ending on the
// result, and the next prompt follows it.
func TestExport_EndsOnToolResult(t *testing.T) {
	st := mustOpenSamples(t)
	ctx := context.Background()
	const id = "7e570001-0000-4000-8000-000000000001"
	mustImport(t, st, writeSession(t, id,
		"user", "Round one: list the files.",
		"assistant", []any{map[string]any{"type": "text", "text": "Listed: a.go and b.go."}},
		"user", "Round two: keep going on your own.",
		"assistant", toolUse("toolu_1"),
		"user", toolResult("toolu_1"),
		"assistant", toolUse("toolu_2"),
		"user", toolResult("toolu_2"),
	))
	if err := st.tags.TagRounds(ctx, id, []int{2}, "run", ""); err != nil {
		t.Fatal(err)
	}
	m, err := surgery.ExtractEngagement(ctx, st.Store, id, "run", cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	sm, err := surgery.ParseSplitMap("1=shared,2=run")
	if err != nil {
		t.Fatal(err)
	}
	children, err := surgery.Split(ctx, st.Store, id, sm, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range append(children, m) {
		t.Run(m.Operation, func(t *testing.T) {
			lines := decodeLines(t, exportLines(t, m))
			last := lines[len(lines)-1]
			if last.Type != "user" || !strings.Contains(string(last.Message.Content), `"tool_use_id":"toolu_2"`) {
				t.Fatalf("the export ends on %s %s, want the result of toolu_2", last.Type, last.Message.Content)
			}
		})
	}
}

// A round with nothing to end on is refused, and the refusal names it.
func TestExport_RefusalNamesRound(t *testing.T) {
	st := mustOpenSamples(t)
	ctx := context.Background()
	const id = "7e570002-0000-4000-8000-000000000002"
	mustImport(t, st, writeSession(t, id,
		"user", "Round one: list the files.",
		"assistant", []any{map[string]any{"type": "text", "text": "Listed: a.go and b.go."}},
		"user", "Round two: think about it.",
		"assistant", []any{map[string]any{"type": "thinking", "thinking": "Hmm.", "signature": "s"}},
	))
	m, err := surgery.Select(ctx, st.Store, id, func(r *cairn.Round) (bool, bool) { return true, r.Seq == 2 }, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	x := &claudecode.Exporter{SessionID: newSessionID, Summary: surgery.Summary(m)}
	_, err = x.Lines(m)
	if cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "7e570002 round 2") {
		t.Fatalf("err = %v, want EINVALID naming 7e570002 round 2", err)
	}
}

// A merge interleaves two sessions by round: every line keeps the time it
// was written, even where the sessions overlap.
func TestExport_MergeKeepsTimestamps(t *testing.T) {
	st := mustOpenSamples(t)
	m, err := surgery.Merge(context.Background(), st.Store, resumed, tools, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	source := map[string]string{} // uuid → timestamp in its source file
	for _, id := range []string{resumed, tools} {
		data, err := os.ReadFile("../testdata/claudecode/" + id + ".jsonl")
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range decodeLines(t, claudecode.SplitLines(data)) {
			source[l.UUID] = l.Timestamp
		}
	}
	n := 0
	for i, l := range decodeLines(t, exportLines(t, m)) {
		if l.CairnSource == nil {
			continue
		}
		n++
		if want := source[l.UUID]; l.Timestamp != want {
			t.Errorf("line %d (%s): timestamp %s, written at %s", i+1, l.UUID, l.Timestamp, want)
		}
	}
	if n == 0 {
		t.Fatal("no line of the sources exported")
	}
}

// The files the client re-reads after compacting, and its other
// attachments there, belong to its summary: a kept round that spans the
// compaction leaves them out with it (else they reach the API as user
// messages of their own, two in a row).
func TestExport_CompactionAttachmentsLeftOut(t *testing.T) {
	st := mustOpenSamples(t)
	const long = "7a11c0de-0000-4000-8000-000000000150" // auto-compacted in round 1
	mustImport(t, st, "../testdata/long/"+long+".jsonl")
	m, err := surgery.Select(context.Background(), st.Store, long, keepAll, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	for i, raw := range exportLines(t, m) {
		var l struct {
			Type       string `json:"type"`
			Attachment struct {
				Type string `json:"type"`
			} `json:"attachment"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == "attachment" && l.Attachment.Type == "file" {
			t.Errorf("line %d: the client's %s attachment of the compaction is exported", i+1, l.Attachment.Type)
		}
	}
}

// A kept round that spans the client's compaction names the steps it
// leaves to the client's summary, so `cairn inject` can bring any back.
func TestSummary_NamesStepsBeforeCompaction(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	const long = "7a11c0de-0000-4000-8000-000000000150" // auto-compacted in round 1, line 356
	mustImport(t, st, "../testdata/long/"+long+".jsonl")
	r, err := st.Rounds.FindRound(ctx, long, 1)
	if err != nil {
		t.Fatal(err)
	}
	before := 0
	for _, s := range cairn.Steps(r.Blocks, r.LastLine) {
		if s.FirstLine < 356 {
			before = s.Seq
		}
	}
	if before < 50 {
		t.Fatalf("%d steps before the compaction: the sample changed", before)
	}
	m, err := surgery.Select(ctx, st.Store, long, keepAll, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("Steps 1.1 to 1.%d of round 1, from before it, are stored in full: `cairn inject SESSION 1.STEP` reads one.", before)
	if sum := surgery.Summary(m); !strings.Contains(sum, want) {
		t.Errorf("the summary lacks %q:\n%s", want, sum)
	}
}

// keepAll keeps every round of a session in full: the whole session,
// through the budget and the client's compactions.
func keepAll(*cairn.Round) (kept, full bool) { return true, true }

// Under a budget, an operation that picks rounds by name never grows what
// the client loads: injecting the round that holds nearly all of a session
// as a session to resume gives up its oldest steps to index lines.
func TestNoLargerThanResume(t *testing.T) {
	ctx := context.Background()
	st := mustOpenSamples(t)
	const long = "7a11c0de-0000-4000-8000-000000000150" // round 1 holds 161 of its 162 steps
	mustImport(t, st, "../testdata/long/"+long+".jsonl")
	orig, err := surgery.Resume(ctx, st.Store, long)
	if err != nil {
		t.Fatal(err)
	}
	unbounded, err := surgery.Inject(ctx, st.Store, long, 1, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	budgeted := st.Store
	budgeted.Limits = surgery.Limits{Budget: surgery.AutoBudget}
	m, err := surgery.Inject(ctx, budgeted, long, 1, cairn.FullFidelity)
	if err != nil {
		t.Fatal(err)
	}
	now, without, with := surgery.Estimate(orig), surgery.Estimate(unbounded), surgery.Estimate(m)
	if without < now*97/100 {
		t.Fatalf("round 1 without a budget is ~%d tokens, the session ~%d: the sample no longer makes the case", without, now)
	}
	if with > now*98/100 {
		t.Errorf("round 1 under the default budget is ~%d tokens, not under the ~%d the client loads for the session", with, now)
	}
	if len(m.Pieces) != 1 || len(m.Pieces[0].Index) == 0 {
		t.Errorf("the round kept no step index lines: %+v", m.Pieces)
	}
	t.Logf("the session as the client loads it ~%d tokens; round 1 ~%d without a budget, ~%d under it", now, without, with)
}
