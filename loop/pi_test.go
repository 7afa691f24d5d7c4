package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/pi"
)

// TestFromPi: pi's moments as the loop's: a start resumes when what pi
// sends holds cairn's context, whatever pi's reason, and is new when it
// does not (a resume after a compaction dropped it); after a compaction it
// is FromCompact; a prompt
// carries the occupancy at pi's compaction point (window less
// reserveTokens), none when pi does not know the tokens or compacts by
// no rule.
func TestFromPi(t *testing.T) {
	c := pi.Compaction{Enabled: true, ReserveTokens: 4000}
	for _, tc := range []struct {
		h    PiHook
		kind Kind
		from string
	}{
		{PiHook{Event: "start", Reason: "startup"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "startup", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "new"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "resume"}, Start, FromNew},
		{PiHook{Event: "start", Reason: "resume", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "fork", Resumed: true}, Start, FromResume},
		{PiHook{Event: "start", Reason: "compact"}, Start, FromCompact},
		{PiHook{Event: "end", Reason: "quit"}, End, ""},
	} {
		ev := FromPi(tc.h)
		if ev.Kind != tc.kind || ev.Source != tc.from || ev.Harness != Pi {
			t.Errorf("%+v: kind %d source %q harness %q", tc.h, ev.Kind, ev.Source, ev.Harness)
		}
	}
	ev := FromPi(PiHook{Event: "prompt", Prompt: "go", Tokens: 12_000, Window: 20_000, Model: "m", Compaction: c})
	if ev.Kind != Prompt || ev.Occupancy == nil || ev.Occupancy.Window.CompactAt != 16_000 || ev.Occupancy.Percent() != 75 {
		t.Fatalf("prompt: %+v %+v", ev, ev.Occupancy)
	}
	for _, h := range []PiHook{
		{Event: "prompt", Window: 20_000, Compaction: c},
		{Event: "prompt", Tokens: 12_000, Compaction: c},
		{Event: "prompt", Tokens: 12_000, Window: 20_000, Compaction: pi.Compaction{Enabled: false, ReserveTokens: 4000}},
	} {
		if ev := FromPi(h); ev.Occupancy != nil {
			t.Errorf("%+v: occupancy %+v", h, ev.Occupancy)
		}
	}
}

// TestPiPressure: a pi prompt past a threshold of the workspace's
// pressure setting is given the note once per crossing, with pi's figures,
// the person the figure; Claude Code's transcript is not read.
func TestPiPressure(t *testing.T) {
	l := newLoop(t)
	c := pi.Compaction{Enabled: true, ReserveTokens: 4000}
	prompt := func(tokens int64) Reply {
		return handle(t, l, FromPi(PiHook{Event: "prompt", Session: "s1", Prompt: "go", Tokens: tokens, Window: 20_000, Compaction: c}))
	}
	if r := prompt(8_000); r.Agent != "" || r.Person != "" {
		t.Errorf("below 70%%: %+v", r)
	}
	r := prompt(14_000)
	if !strings.Contains(r.Agent, "your context is 87% of the way to where pi compacts it (14,000 of 16,000 tokens; window 20,000; past the 85% mark)") ||
		!strings.Contains(r.Agent, "cairn inject s1 ROUND") || !strings.Contains(r.Agent, "cairn checkpoint --session s1") {
		t.Errorf("agent: %s", r.Agent)
	}
	if r.Person != "cairn: context 87% of the way to pi's compaction (14,000 of 16,000 tokens)" {
		t.Errorf("person: %q", r.Person)
	}
	if r := prompt(14_500); r.Agent != "" {
		t.Errorf("the same crossing again: %s", r.Agent)
	}
}

// countingLines counts the lines read by range, apart from a session's
// whole read (pi's tree, [pi.SessionOffPath]).
type countingLines struct {
	cairn.LineStore
	read int
}

func (c *countingLines) FindLines(ctx context.Context, session string, from, to int) ([]*cairn.Line, error) {
	ls, err := c.LineStore.FindLines(ctx, session, from, to)
	c.read += len(ls)
	return ls, err
}

// writePiSession writes a format-3 pi session of n prompts in dir, each
// answered with a call, its result and a reply, and returns its id and
// path.
func writePiSession(t *testing.T, dir string, n int) (string, string) {
	t.Helper()
	const id = "01a22180-defd-73bc-8443-00000000c0de"
	var b strings.Builder
	fmt.Fprintf(&b, `{"type":"session","version":3,"id":%q,"timestamp":"2026-11-28T09:33:43.559Z","cwd":%q}`+"\n", id, dir)
	parent, e := "null", 0
	entry := func(msg string) {
		e++
		fmt.Fprintf(&b, `{"type":"message","id":"%08x","parentId":%s,"timestamp":"2026-11-28T09:33:44.000Z","message":%s}`+"\n", e, parent, msg)
		parent = fmt.Sprintf(`"%08x"`, e)
	}
	for i := 1; i <= n; i++ {
		entry(fmt.Sprintf(`{"role":"user","content":[{"type":"text","text":"step %d: look at part %d"}]}`, i, i))
		entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"toolCall","id":"toolu_%d","name":"bash","arguments":{"command":"cat part%d.txt"}}],"stopReason":"toolUse","usage":{"input":%d,"output":20,"totalTokens":%d}}`, i, i, 1000*i, 1000*i+20))
		entry(fmt.Sprintf(`{"role":"toolResult","toolCallId":"toolu_%d","toolName":"bash","content":[{"type":"text","text":%q}],"isError":false}`, i, strings.Repeat(fmt.Sprintf("line of part %d\n", i), 20)))
		entry(fmt.Sprintf(`{"role":"assistant","content":[{"type":"text","text":"Part %d holds 20 lines."}],"stopReason":"stop","usage":{"input":%d,"output":20,"totalTokens":%d}}`, i, 1000*i, 1000*i+20))
	}
	path := filepath.Join(dir, "2026-11-28T09-33-43-559Z_"+id+".jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return id, path
}

// TestCompaction_ReadsOnce (issue 45: the extension's compaction within
// pi's own compaction's time): cairn's compaction of a pi session whose
// rounds all fit reads each round's blocks once (the fit's, which the
// rounds in full keep) and no line by range (markdown is written from the
// blocks): the fill read them all again, and their lines.
func TestCompaction_ReadsOnce(t *testing.T) {
	l := newLoop(t)
	ctx := context.Background()
	id, path := writePiSession(t, l.Wd, 12)
	if _, err := l.Inscribe(ctx, Event{Harness: Pi, Session: id, Transcript: path, Cwd: l.Wd}); err != nil {
		t.Fatal(err)
	}
	st, _ := l.Open()
	rounds, lines := &countingRounds{RoundStore: st.Rounds}, &countingLines{LineStore: st.Lines}
	st.Rounds, st.Lines = rounds, lines
	defer func() { st.Rounds, st.Lines = rounds.RoundStore, lines.LineStore }()
	md, mat, err := l.Compaction(ctx, id, PiBudget(200_000, 16_384), cairn.AgentPi, "")
	if err != nil {
		t.Fatal(err)
	}
	if len(mat.FullPieces()) != 12 || !strings.Contains(md, "Part 1 holds 20 lines.") || !strings.Contains(md, "Part 12 holds 20 lines.") {
		t.Fatalf("%d rounds in full:\n%s", len(mat.FullPieces()), md)
	}
	if rounds.read != 12 || lines.read != 0 {
		t.Errorf("read the blocks of %d rounds (of 12) and %d lines by range, want 12 and none", rounds.read, lines.read)
	}
}

// TestPiInscribesAtStart: pi's start inscribes the session file it names
// unless what pi sends holds cairn's context or a compaction not prepared
// ahead just inscribed it; no other event, and no start without a file.
func TestPiInscribesAtStart(t *testing.T) {
	for _, tc := range []struct {
		h    PiHook
		want bool
	}{
		{PiHook{Event: "start", File: "s.jsonl", Reason: "startup"}, true},
		{PiHook{Event: "start", File: "s.jsonl", Reason: "resume"}, true},
		{PiHook{Event: "start", File: "s.jsonl", Reason: "startup", Resumed: true}, false},
		{PiHook{Event: "start", File: "s.jsonl", Reason: "compact"}, false},
		{PiHook{Event: "start", File: "s.jsonl", Reason: "compact", Prepared: true}, true},
		{PiHook{Event: "start", File: "s.jsonl", Reason: "compact", Prepared: true, Resumed: true}, false},
		{PiHook{Event: "start", Reason: "startup"}, false},
		{PiHook{Event: "prompt", File: "s.jsonl"}, false},
		{PiHook{Event: "end", File: "s.jsonl", Reason: "quit"}, false},
	} {
		if got := tc.h.InscribesAtStart(); got != tc.want {
			t.Errorf("%+v: InscribesAtStart %v, want %v", tc.h, got, tc.want)
		}
	}
}

// TestPiSession: a pi moment's session is its file's header id, with the
// file's folder, once the file is written; pi's id while it is not (or no
// file is named); a file that does not read as a pi session is an error.
func TestPiSession(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "2026-11-28T09-33-43-559Z_x.jsonl")
	const head = `{"type":"session","version":3,"id":"01a22180-defd-73bc-8443-00000000beef","timestamp":"2026-11-28T09:33:43.559Z","cwd":"/work"}` + "\n"
	if err := os.WriteFile(file, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.jsonl")
	if err := os.WriteFile(other, []byte(`{"type":"user","sessionId":"s"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, session, folder string
		fails                 bool
	}{
		{file, "01a22180-defd-73bc-8443-00000000beef", dir, false},
		{filepath.Join(dir, "unwritten.jsonl"), "pi-id", "", false},
		{"", "pi-id", "", false},
		{other, "", "", true},
	} {
		session, folder, err := PiSession("pi-id", tc.file)
		if session != tc.session || folder != tc.folder || (err != nil) != tc.fails {
			t.Errorf("%q: session %q folder %q err %v, want %q %q fails %v", tc.file, session, folder, err, tc.session, tc.folder, tc.fails)
		}
	}
}

// TestPiCompact: pi's compaction inscribes the session and revives it
// within PiBudget; pi keeps from the branch's last entry when it is a
// finished reply, else from where pi would; a prepared one is of the
// session up to its entry, which it names instead.
func TestPiCompact(t *testing.T) {
	l := newLoop(t)
	ctx := context.Background()
	id, path := writePiSession(t, l.Wd, 3)
	reply := PiLeaf{ID: "0000000c", Type: "message", Role: "assistant", StopReason: "stop"}
	result := PiLeaf{ID: "0000000b", Type: "message", Role: "toolResult"}
	for _, tc := range []struct {
		leaf                   PiLeaf
		upto, firstKept, holds string
	}{
		{reply, "", "0000000c", "Part 3 holds 20 lines."},
		{result, "", "00000005", "Part 3 holds 20 lines."},
		{reply, "00000008", "", "Part 2 holds 20 lines."},
	} {
		r, err := l.PiCompact(ctx, PiCompact{Session: id, File: path, Window: 200_000, Reserve: 16_384, FirstKept: "00000005", Leaf: tc.leaf, Upto: tc.upto})
		if err != nil {
			t.Fatal(err)
		}
		if r.Session != id || r.FirstKept != tc.firstKept || r.Upto != tc.upto || r.Budget != PiBudget(200_000, 16_384) || r.Tokens <= 0 || !strings.Contains(r.Summary, tc.holds) {
			t.Errorf("leaf %s upto %q: session %q first kept %q upto %q tokens %d budget %d, want %q, %q:\n%s", tc.leaf.ID, tc.upto, r.Session, r.FirstKept, r.Upto, r.Tokens, r.Budget, tc.firstKept, tc.holds, r.Summary)
		}
		if tc.upto != "" && strings.Contains(r.Summary, "Part 3 holds") {
			t.Errorf("prepared up to %s holds the third round:\n%s", tc.upto, r.Summary)
		}
	}
}
