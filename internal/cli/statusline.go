package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/workspace"
)

func (m *Main) runStatusline(ctx context.Context, args []string) error {
	fs := m.newFlagSet("statusline", "< status.json", `
Print one line for Claude Code's status line: how far the context is on
the way to where the client compacts it (the figure pressure notes and
advise state: tokens held at the last reply, of the compaction point; of
the window itself where the client compacts only when the API refuses a
request: a 200k model's, and any before release 2.1.330), the frame in
progress and the active engagement, as in

  ctx 72% (120k/167k) · frame f3 Login form · engagement auth

(right after a compaction, before a reply counts it, an estimate of what
the client sends next, marked "~": ctx ~29% (~58k/200k)) and, from the prompt where cairn prepared a revived session (a pressure
crossing, an automatic compaction) to the next, the command that resumes
it: "revived: claude --resume ID"; from a pressure crossing that
recommends a command to the next prompt, that command, which prints the
resume line of a lighter session: "advised: cairn compress-before ID N".

Claude Code runs it with the session's status JSON on stdin (session_id,
transcript_path, cwd, model, context_window) after each message; "cairn
install claude --statusline" sets it up. The window size the client
reports is recorded in .cairn/window/, for the hooks and advise. It reads only the transcript's end, prints
nothing it cannot find, and always exits 0, so a status line is never an
error in the client.`)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	var in struct {
		SessionID      string `json:"session_id"`
		TranscriptPath string `json:"transcript_path"`
		Cwd            string `json:"cwd"`
		Workspace      struct {
			CurrentDir string `json:"current_dir"`
		} `json:"workspace"`
		Model struct {
			ID string `json:"id"`
		} `json:"model"`
		ContextWindow struct {
			Size         int64 `json:"context_window_size"`
			CurrentUsage *struct {
				Input         int64 `json:"input_tokens"`
				CacheRead     int64 `json:"cache_read_input_tokens"`
				CacheCreation int64 `json:"cache_creation_input_tokens"`
			} `json:"current_usage"`
		} `json:"context_window"`
	}
	data, _ := io.ReadAll(io.LimitReader(m.Stdin, 1<<20))
	_ = json.Unmarshal(data, &in)
	cwd := in.Workspace.CurrentDir
	if cwd == "" {
		cwd = in.Cwd
	}
	if cwd == "" {
		cwd, _ = m.Getwd()
	}
	l := &loop.Loop{Owner: m.Getenv("CAIRN_AGENT"), Now: m.now, Getenv: m.Getenv, Folders: m.transcriptDirs()}
	if root, ok := workspace.Find(cwd); ok {
		l.Workspace = workspace.New(root)
		m.Getwd = func() (string, error) { return cwd, nil }
		var held func() *store
		l.Open, held = m.storeOnce()
		defer func() {
			if st := held(); st != nil {
				st.Close()
			}
		}()
	}
	s := loop.Status{Session: in.SessionID, Transcript: in.TranscriptPath, Model: in.Model.ID, WindowSize: in.ContextWindow.Size}
	if u := in.ContextWindow.CurrentUsage; u != nil {
		s.Usage = &cairn.Usage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation}
	}
	fmt.Fprintln(m.Stdout, l.StatusLine(ctx, s))
	return nil
}
