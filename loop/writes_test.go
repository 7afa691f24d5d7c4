package loop

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// transcript writes Claude Code lines for one session, a round at a time.
type transcript struct {
	t       *testing.T
	path    string
	session string
	n       int
	parent  string
}

func (tr *transcript) line(v map[string]any) {
	tr.t.Helper()
	tr.n++
	uuid := fmt.Sprintf("00000000-0000-4000-8000-%012d", tr.n)
	v["uuid"], v["sessionId"], v["cwd"] = uuid, tr.session, filepath.Dir(tr.path)
	v["timestamp"] = fmt.Sprintf("2026-11-28T10:%02d:%02d.000Z", tr.n/60%60, tr.n%60)
	if tr.parent != "" {
		v["parentUuid"] = tr.parent
	}
	tr.parent = uuid
	data, err := json.Marshal(v)
	if err != nil {
		tr.t.Fatal(err)
	}
	f, err := os.OpenFile(tr.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		tr.t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Write(append(data, '\n')); err != nil {
		tr.t.Fatal(err)
	}
}

// round appends a prompt and the agent's answer: a Write of file (none
// when ""), then text.
func (tr *transcript) round(prompt, file, text string) {
	tr.line(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	id := fmt.Sprintf("msg_%04d", tr.n)
	usage := map[string]any{"input_tokens": 1000, "output_tokens": 10}
	if file != "" {
		call := fmt.Sprintf("toolu_%04d", tr.n)
		tr.line(map[string]any{"type": "assistant", "message": map[string]any{"id": id, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
			"content": []any{map[string]any{"type": "tool_use", "id": call, "name": "Write", "input": map[string]any{"file_path": file, "content": "package x\n"}}}}})
		tr.line(map[string]any{"type": "user", "message": map[string]any{"role": "user",
			"content": []any{map[string]any{"type": "tool_result", "tool_use_id": call, "content": "File created successfully at: " + file}}}})
		id += "b"
	}
	tr.line(map[string]any{"type": "assistant", "message": map[string]any{"id": id, "role": "assistant", "model": "claude-sonnet-4-5", "usage": usage,
		"content": []any{map[string]any{"type": "text", "text": text}}}})
}

// compaction appends the client's compaction: its boundary and summary.
func (tr *transcript) compaction() {
	tr.line(map[string]any{"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
		"compactMetadata": map[string]any{"trigger": "auto", "preTokens": 160000}})
	tr.line(map[string]any{"type": "user", "isCompactSummary": true, "message": map[string]any{"role": "user",
		"content": "This session is being continued from a previous conversation that ran out of context."}})
}

// startedSession is a loop whose workspace runs session, started new,
// the transcript it writes and the event that started it.
func startedSession(t *testing.T, session string) (*Loop, *transcript, Event) {
	l := newLoop(t)
	l.Workspace.Session = session
	tr := &transcript{t: t, path: filepath.Join(l.Wd, session+".jsonl"), session: session}
	ev := Event{Harness: ClaudeCode, Session: session, Transcript: tr.path, Cwd: l.Wd}
	ev.Kind, ev.Source = Start, FromNew
	handle(t, l, ev)
	return l, tr, ev
}

// TestEnd_WholeSession (issue #42, 2b): the line a session's end writes
// names what the whole session changed, read from the store: a file
// written eight prompts and more than 256 KiB of transcript before the end
// (beyond what the transcript's end holds), and a decision and a todo made
// before a compaction.
func TestEnd_WholeSession(t *testing.T) {
	const session = "5f0c2a1e-0000-4000-8000-0000000000b2"
	l, tr, ev := startedSession(t, session)

	tr.round("write the early file", filepath.Join(l.Wd, "src", "early.go"), "Wrote src/early.go.")
	ev.Kind = TurnEnd
	handle(t, l, ev)
	if err := l.Workspace.AppendDecision(&cairn.Decision{Title: "Keep the parser hand-written", Decision: "Hand-written."}); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Workspace.AddTodo("Fuzz the parser", "", ""); err != nil {
		t.Fatal(err)
	}
	tr.round("write the second file", filepath.Join(l.Wd, "src", "second.go"), "Wrote src/second.go.")
	long := strings.Repeat("the parser reads every token once; ", 1200) // ~42 KB a round
	for i := range 4 {
		tr.round(fmt.Sprintf("review part %d", i+1), "", long)
	}
	tr.compaction()
	ev.Kind, ev.Source = Start, FromCompact
	handle(t, l, ev)
	for i := range 4 {
		tr.round(fmt.Sprintf("review part %d", i+5), "", long)
	}
	tr.round("write the last file", filepath.Join(l.Wd, "src", "last.go"), "Wrote src/last.go.")
	if info, err := os.Stat(tr.path); err != nil || info.Size() < 300<<10 {
		t.Fatalf("the transcript is too short to leave the early write behind its last 256 KiB: %v, %v", info, err)
	}
	ev.Kind, ev.Reason = End, "logout"
	handle(t, l, ev)
	board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"decided ADR-001 Keep the parser hand-written", "todos added TODO-001 Fuzz the parser", "wrote src/early.go", "src/second.go", "src/last.go"} {
		if !strings.Contains(string(board), want) {
			t.Errorf("the end's line does not say %q:\n%s", want, board)
		}
	}
}

// TestTurnEnd_WritesRecordStands: a turn's end that finds no file written
// in the rounds since the session's writes record leaves the record as it
// is (no file replaced), up to writesLag rounds behind; the rounds it
// stayed behind are read again at the next turn's end, whose write is
// found, and the session's end names every file.
func TestTurnEnd_WritesRecordStands(t *testing.T) {
	const session = "5f0c2a1e-0000-4000-8000-0000000000b3"
	l, tr, ev := startedSession(t, session)
	path := l.writesPath(session)
	record := func() (os.FileInfo, *writesRecord) {
		t.Helper()
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, ok := readWrites(path)
		if !ok {
			t.Fatalf("no writes record at %s", path)
		}
		return info, rec
	}
	ev.Kind = TurnEnd
	tr.round("write the first file", filepath.Join(l.Wd, "src", "first.go"), "Wrote src/first.go.")
	handle(t, l, ev)
	before, rec := record()
	if !slices.Equal(rec.Files, []string{"src/first.go"}) || rec.Round != 1 {
		t.Fatalf("after the first turn: %+v, want src/first.go read up to round 1", rec)
	}
	tr.round("review it", "", "Looks right.")
	handle(t, l, ev)
	if after, rec := record(); !os.SameFile(before, after) || rec.Round != 1 {
		t.Fatalf("a turn that wrote nothing replaced the writes record (now %+v)", rec)
	}
	tr.round("write the second file", filepath.Join(l.Wd, "src", "second.go"), "Wrote src/second.go.")
	handle(t, l, ev)
	before, rec = record()
	if !slices.Equal(rec.Files, []string{"src/first.go", "src/second.go"}) || rec.Round != 3 {
		t.Fatalf("after the second write: %+v, want both files read up to round 3", rec)
	}
	for i := range writesLag {
		tr.round(fmt.Sprintf("review part %d", i+1), "", "Fine.")
	}
	handle(t, l, ev)
	if after, rec := record(); os.SameFile(before, after) || rec.Round != 3+writesLag {
		t.Fatalf("%d rounds behind, the record was not written again: %+v", writesLag, rec)
	}
	tr.round("write the last file", filepath.Join(l.Wd, "src", "last.go"), "Wrote src/last.go.")
	ev.Kind, ev.Reason = End, "logout"
	handle(t, l, ev)
	board, err := os.ReadFile(filepath.Join(l.Wd, cairn.BoardFile))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"src/first.go", "src/second.go", "src/last.go"} {
		if !strings.Contains(string(board), want) {
			t.Errorf("the end's line does not say %q:\n%s", want, board)
		}
	}
}
