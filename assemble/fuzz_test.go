package assemble_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
)

// bigTree returns n frames in a tree of realistic shape: a root, then
// each frame has up to fanout children, depth up to 6; statuses cycle.
// It returns the frames and the ID of a deep in-progress frame.
func bigTree(n, fanout int, text string) ([]*cairn.Frame, string) {
	statuses := []cairn.FrameStatus{cairn.FrameCompleted, cairn.FramePlanned, cairn.FrameCompleted, cairn.FrameFailed, cairn.FrameInvalidated, cairn.FramePlanned}
	frames := []*cairn.Frame{{ID: "f0", Status: cairn.FrameInProgress, Title: "Root " + text, SuccessCriteria: "Everything " + text}}
	current := "f0"
	for i := 1; i < n; i++ {
		parent := frames[(i-1)/fanout]
		f := &cairn.Frame{
			ID: fmt.Sprintf("f%d", i), ParentID: parent.ID, Status: statuses[i%len(statuses)],
			Title: fmt.Sprintf("Task %d %s", i, text), SuccessCriteria: fmt.Sprintf("Criteria of task %d: %s", i, text),
			StartedAt: time.Unix(int64(i), 0),
		}
		if f.Status == cairn.FrameCompleted || f.Status == cairn.FrameFailed {
			f.Results = fmt.Sprintf("Results of %d: %s %s", i, text, text)
			f.ResultsCompacted = fmt.Sprintf("Done %d.", i)
			f.Artifacts = []string{fmt.Sprintf("src/task%d.go", i)}
		}
		if parent.Status == cairn.FrameInProgress && i%fanout == 1 {
			f.Status = cairn.FrameInProgress
			current = f.ID
		}
		frames = append(frames, f)
	}
	return frames, current
}

// FuzzBudget checks the budget manager's invariant: the output never
// exceeds its token or character cap, and the current frame's success
// criteria are always in it, whole, or, when everything else has been cut
// and they still do not fit, as a prefix marked "…[truncated]" with the
// truncation reported. Budgets at or above the floors always succeed.
func FuzzBudget(f *testing.F) {
	f.Add(4000, 10000, 40, 3, "a realistic sentence about the work", "GET/POST /tasks with validation", 0)
	f.Add(200, 800, 200, 5, strings.Repeat("long text ", 50), strings.Repeat("criteria ", 300), 1)
	f.Add(250, 5000, 10, 2, "日本語のテキスト🙂", "基準", 2)
	f.Add(1000, 800, 300, 10, "<&\"'>", "x", 0)
	f.Add(200, 100000, 60, 3, "1234567890", strings.Repeat("9", 2000), 2)
	f.Add(300, 2000, 30, 4, "two\nlines", "first line\n  second line", 1)
	bpe := assemble.MustBPE()
	f.Fuzz(func(t *testing.T, tokens, chars, n, fanout int, text, criteria string, format int) {
		b := cairn.DefaultBudget()
		b.Tokens = cairn.MinBudgetTokens + abs(tokens)%20000
		b.Chars = cairn.MinBudgetChars + abs(chars)%50000
		n, fanout = 1+abs(n)%400, 2+abs(fanout)%12
		text = strings.ToValidUTF8(text, "?")
		criteria = strings.ToValidUTF8(strings.TrimSpace(criteria), "?")
		if criteria == "" {
			criteria = "c"
		}
		fm := []assemble.Format{assemble.XML, assemble.Markdown, assemble.JSON}[abs(format)%3]
		frames, cur := bigTree(n, fanout, text)
		tree := cairn.NewFrameTree(frames)
		v := &assemble.View{Tree: tree, Current: tree.Frame(cur),
			Mission: &cairn.Mission{Text: "Mission " + text, Phase: &cairn.Phase{Name: "P", Task: "Task " + text}},
			Relay:   []assemble.Document{{Name: "notes.md", Text: strings.Repeat(text+"\n", 30)}}}
		v.Current.SuccessCriteria = criteria
		if utf8.RuneCountInString(v.Current.Title) > cairn.MaxFrameTitleLen {
			v.Current.Title = string([]rune(v.Current.Title)[:cairn.MaxFrameTitleLen])
		}
		ctx, err := assemble.Build(v, b, fm, bpe)
		if err != nil {
			t.Fatalf("budget %d tokens %d chars: %v", b.Tokens, b.Chars, err)
		}
		if got := bpe.Count(ctx.Text); got > b.Tokens || got != ctx.Tokens {
			t.Fatalf("%d tokens (reported %d) for a budget of %d", got, ctx.Tokens, b.Tokens)
		}
		if len(ctx.Text) > b.Chars {
			t.Fatalf("%d chars for a budget of %d", len(ctx.Text), b.Chars)
		}
		if fm == assemble.JSON && !json.Valid([]byte(ctx.Text)) {
			t.Fatalf("invalid JSON:\n%s", ctx.Text)
		}
		if !containsCriteria(ctx, fm, criteria) {
			t.Fatalf("criteria %q missing from:\n%s", criteria, ctx.Text)
		}
	})
}

// containsCriteria reports whether ctx holds criteria whole or, if it
// reports their truncation, a non-empty prefix followed by the mark.
func containsCriteria(ctx *assemble.Context, fm assemble.Format, criteria string) bool {
	enc := func(s string) string {
		switch fm {
		case assemble.JSON:
			buf, _ := json.Marshal(s)
			return strings.TrimSuffix(string(buf), `"`)
		case assemble.XML:
			return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
		}
		return s
	}
	truncated := false
	for _, c := range ctx.Cuts {
		truncated = truncated || c.Item == "criteria" && c.Truncated
	}
	if !truncated {
		whole := enc(criteria)
		if fm == assemble.Markdown { // continuation lines are indented
			squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
			return strings.Contains(squash(ctx.Text), squash(criteria))
		}
		return strings.Contains(ctx.Text, strings.TrimSuffix(whole, `"`))
	}
	if !strings.Contains(ctx.Text, "success criteria truncated") {
		return false
	}
	r := []rune(criteria)
	return strings.Contains(ctx.Text, enc(string(r[:1]))) && strings.Contains(ctx.Text, "…[truncated]")
}

func abs(n int) int {
	if n < 0 {
		if n == -n {
			return 0
		}
		return -n
	}
	return n
}

// BenchmarkAssemble1000 assembles the context of a deep frame in a tree
// of 1,000 frames (fanout 6, depth 4) under the default budget.
func BenchmarkAssemble1000(b *testing.B) {
	frames, cur := bigTree(1000, 6, "with a sentence of realistic length about what was done and why")
	tree := cairn.NewFrameTree(frames)
	v := &assemble.View{Tree: tree, Current: tree.Frame(cur), Mission: appView().Mission}
	bpe := assemble.MustBPE()
	b.ReportAllocs()
	for b.Loop() {
		// The tree is read fresh each time, as from a store.
		v.Tree = cairn.NewFrameTree(frames)
		v.Current = v.Tree.Frame(cur)
		if _, err := assemble.Build(v, cairn.DefaultBudget(), assemble.XML, bpe); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAssembleFlat1000 is the worst shape: 999 siblings.
func BenchmarkAssembleFlat1000(b *testing.B) {
	frames, _ := bigTree(1000, 1000, "with a sentence of realistic length about what was done and why")
	frames[1].Status = cairn.FrameInProgress
	bpe := assemble.MustBPE()
	for b.Loop() {
		tree := cairn.NewFrameTree(frames)
		v := &assemble.View{Tree: tree, Current: tree.Frame("f1")}
		if _, err := assemble.Build(v, cairn.DefaultBudget(), assemble.XML, bpe); err != nil {
			b.Fatal(err)
		}
	}
}
