package pi_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// doc is a session written from docs/session-format.md (format 2, where
// an extension's message has the role hookMessage): a compaction, a model
// change, an extension's message, the user's own shell command, a label,
// an entry of a type pi may add later (with a field cairn does not know),
// and a branch made without a summary (a prompt whose parent is not the
// entry before it), the file's last entries, so the active path. The
// unknown entry's id stays in the tree: the label after it is no branch.
const doc = `{"type":"session","version":2,"id":"0c7a2f7e-1111-4222-8333-944445555666","timestamp":"2024-12-03T14:00:00.000Z","cwd":"/p"}
{"type":"message","id":"a1","parentId":null,"timestamp":"2024-12-03T14:00:01.000Z","message":{"role":"user","content":"Hello"}}
{"type":"message","id":"a2","parentId":"a1","timestamp":"2024-12-03T14:00:02.000Z","message":{"role":"assistant","content":[{"type":"thinking","thinking":"greet"},{"type":"text","text":"Hi!"},{"type":"toolCall","id":"c1","name":"bash","arguments":{"command":"ls"}}],"provider":"anthropic","model":"m","usage":{"input":10,"output":5,"cacheRead":3,"cacheWrite":2},"stopReason":"toolUse"}}
{"type":"message","id":"a3","parentId":"a2","timestamp":"2024-12-03T14:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"bash","content":[{"type":"text","text":"out"}],"isError":true}}
{"type":"compaction","id":"a4","parentId":"a3","timestamp":"2024-12-03T14:10:00.000Z","summary":"User said hello.","firstKeptEntryId":"a3","tokensBefore":50000}
{"type":"model_change","id":"a5","parentId":"a4","timestamp":"2024-12-03T14:10:01.000Z","provider":"openai","modelId":"gpt-4o"}
{"type":"message","id":"a6","parentId":"a5","timestamp":"2024-12-03T14:10:02.000Z","message":{"role":"hookMessage","customType":"ext","content":"from the extension","display":true}}
{"type":"message","id":"a7","parentId":"a6","timestamp":"2024-12-03T14:10:03.000Z","message":{"role":"bashExecution","command":"make","output":"ok","exitCode":0,"cancelled":false,"truncated":false}}
{"type":"future_entry","id":"a8","parentId":"a7","timestamp":"2024-12-03T14:10:04.000Z","whatever":{"x":1}}
{"type":"label","id":"a9","parentId":"a8","timestamp":"2024-12-03T14:10:05.000Z","targetId":"a1","label":"start","newField":true}
{"type":"message","id":"b1","parentId":"a2","timestamp":"2024-12-03T14:20:00.000Z","message":{"role":"user","content":[{"type":"text","text":"Other way"},{"type":"image","data":"AAAA","mimeType":"image/png"}]}}
{"type":"message","id":"b2","parentId":"b1","timestamp":"2024-12-03T14:20:01.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Sure."}],"model":"m","usage":{"input":20,"output":1,"cacheRead":0,"cacheWrite":0},"stopReason":"stop"}}
`

// TestFormatDoc reads the documented entry types: each line kept, an
// unknown type kept raw with its id still in the tree, the branch in a
// round of its own that names where it continues from, and each kind of
// block.
func TestFormatDoc(t *testing.T) {
	raws := splitLines([]byte(doc))
	s, err := pi.Format{}.Identify("x.jsonl", raws)
	if err != nil || s.ID != "0c7a2f7e-1111-4222-8333-944445555666" || s.Version != "2" || s.Project != "/p" {
		t.Fatalf("Identify: %+v, %v", s, err)
	}
	if (pi.Format{}).AppendOnly(s, "x.jsonl") {
		t.Error("a format 2 file is migrated (rewritten) by pi: not append-only")
	}
	lines := toLines(s.ID, raws)
	rounds, blocks := build(s, lines, 0)
	got := render(rounds, blocks)
	for _, want := range []string{
		"round 1 lines 2-10 tools [bash] prompt \"Hello\" answer \"Hi!\" usage 10/5",
		"thinking assistant : greet",
		"tool-result user bash: out (error=true",
		"compaction system : Conversation compacted by the client (50000 tokens before, kept from entry a3) U",
		"meta-text system : from the extension",
		"meta-text user : $ make ok (exit 0)",
		"meta-text system : Label \"start\" on entry a1",
		"round 2 lines 11-12 tools [] prompt \"Other way [image image/png]\" answer \"Sure.\" usage 20/1",
		"0 line 11 user-text user : Other way [image image/png]",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if lines[8].Status != cairn.LineUnknownType || lines[8].UUID != "a8" || lines[9].Status != cairn.LineOK {
		t.Errorf("unknown entry: %s %q; next %s", lines[8].Status, lines[8].UUID, lines[9].Status)
	}
	if lines[10].ParentUUID != "a2" || lines[10].RoundSeq != 2 || lines[9].RoundSeq != 1 {
		t.Errorf("the branch's prompt: parent %q, round %d after %d", lines[10].ParentUUID, lines[10].RoundSeq, lines[9].RoundSeq)
	}
}

// TestFormat1Header: a header without a version is format 1; a
// version 3 file is append-only; a fork names its parent by file name.
func TestFormat1Header(t *testing.T) {
	s, err := pi.Format{}.Identify("x.jsonl", [][]byte{[]byte(`{"type":"session","id":"s1","timestamp":"2025-01-01T00:00:00Z","cwd":"/w"}` + "\n")})
	if err != nil || s.Version != "1" || (pi.Format{}).AppendOnly(s, "x.jsonl") {
		t.Errorf("format 1: %+v %v", s, err)
	}
	s, err = pi.Format{}.Identify("x.jsonl", [][]byte{[]byte(`{"type":"session","version":3,"id":"s2","timestamp":"2025-01-01T00:00:00Z","cwd":"/w","parentSession":"/h/.pi/agent/sessions/--w--/2025-01-01T00-00-00-000Z_01a22180-defd-73bc-8443-003c4a745f68.jsonl"}` + "\n")})
	if err != nil || s.Version != "3" || !(pi.Format{}).AppendOnly(s, "x.jsonl") || s.Parent != "01a22180-defd-73bc-8443-003c4a745f68" {
		t.Errorf("format 3 fork: %+v %v", s, err)
	}
	for _, head := range []string{`{"type":"user","sessionId":"x"}`, `{"type":"session_meta","payload":{}}`, `{"type":"session","id":"x"}`, `not json`} {
		if pi.IsSession("x.jsonl", [][]byte{[]byte(head)}) {
			t.Errorf("%s read as a pi session", head)
		}
	}
}

// TestProjectDir is pi's getDefaultSessionDir.
func TestProjectDir(t *testing.T) {
	if got := pi.ProjectDir("/h/.pi/agent/sessions", "/tmp/a/work"); got != "/h/.pi/agent/sessions/--tmp-a-work--" {
		t.Error(got)
	}
	env := map[string]string{"PI_CODING_AGENT_DIR": "~/pa", "PI_CODING_AGENT_SESSION_DIR": "/s"}
	if got := pi.SessionsDirs(func(k string) string { return env[k] }, "/h"); strings.Join(got, " ") != "/h/pa/sessions /s" {
		t.Error(got)
	}
}

// TestOffPath: the branch left (the prompt "Hello"'s second half: its
// compaction and what follows it) is off the path; the prompt, its
// reply, and the branch pi resumes from are on it, as are the header and
// lines that are no entries.
func TestOffPath(t *testing.T) {
	raws := splitLines([]byte(doc))
	off := pi.OffPath(toLines("s", raws))
	for no := 1; no <= len(raws); no++ {
		want := no >= 4 && no <= 10
		if off[no] != want {
			t.Errorf("line %d off the path: %v, want %v", no, off[no], want)
		}
	}
	samples, _ := filepath.Glob(filepath.Join("testdata", pitestNewest, "*.jsonl"))
	data, err := os.ReadFile(samples[0])
	if err != nil {
		t.Fatal(err)
	}
	off = pi.OffPath(toLines("s", splitLines(data)))
	if len(off) != 4 || !off[8] || !off[11] {
		t.Errorf("the sample's branch left: lines %v, want 8-11 (the write)", off)
	}
}

const pitestNewest = "0.73.1"
