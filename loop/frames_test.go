package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

type countFrames struct {
	cairn.FrameStore
	reads int
}

func (c *countFrames) FindFrames(ctx context.Context) ([]*cairn.Frame, error) {
	c.reads++
	return c.FrameStore.FindFrames(ctx)
}

// TestFramesOnce: a turn's end reads the frames from the store once,
// though its import (the active frame) and its pop check both read them;
// a copy changed by its caller changes none read after it; a write
// through it reads them again.
func TestFramesOnce(t *testing.T) {
	l := newLoop(t)
	st, err := l.Open()
	if err != nil {
		t.Fatal(err)
	}
	count := &countFrames{FrameStore: st.Frames}
	st.Frames = FramesOnce(count)
	ctx := context.Background()
	stack := &cairn.Stack{Frames: st.Frames}
	if _, err := stack.Push(ctx, "", &cairn.Frame{Title: "Measure the hooks", SuccessCriteria: "every hook timed", SessionID: "s1"}, "me"); err != nil {
		t.Fatal(err)
	}
	const session = "5e5e5e5e-0000-4000-8000-000000000002"
	path := filepath.Join(l.Wd, session+".jsonl")
	line := fmt.Sprintf(`{"type":"user","sessionId":"%s","uuid":"00000000-0000-4000-8000-000000000001","parentUuid":null,"timestamp":"2026-03-19T10:24:00Z","cwd":"/r","message":{"role":"user","content":"Write chapter 2"}}`+"\n", session)
	if err := os.WriteFile(path, []byte(line), 0o644); err != nil {
		t.Fatal(err)
	}
	count.reads = 0
	handle(t, l, Event{Kind: TurnEnd, Harness: ClaudeCode, Session: session, Transcript: path})
	if count.reads != 1 {
		t.Errorf("a turn's end read the frames %d times, want 1", count.reads)
	}
	frames, err := st.Frames.FindFrames(ctx)
	if err != nil || len(frames) != 1 {
		t.Fatalf("%d frames, %v", len(frames), err)
	}
	frames[0].Title = "changed"
	if again, _ := st.Frames.FindFrames(ctx); again[0].Title != "Measure the hooks" || count.reads != 1 {
		t.Errorf("read again: %q, %d reads", again[0].Title, count.reads)
	}
	if _, err := stack.Push(ctx, "", &cairn.Frame{Title: "Second", SuccessCriteria: "done", SessionID: "s1"}, "me"); err != nil {
		t.Fatal(err)
	}
	if again, _ := st.Frames.FindFrames(ctx); len(again) != 2 {
		t.Errorf("after a push: %d frames, want 2", len(again))
	}
}
