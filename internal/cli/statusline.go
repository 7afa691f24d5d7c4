package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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

and, from the prompt where cairn prepared a revived session (a pressure
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
	var parts []string
	cwd := in.Workspace.CurrentDir
	if cwd == "" {
		cwd = in.Cwd
	}
	if cwd == "" {
		cwd, _ = m.Getwd()
	}
	root, inWorkspace := workspace.Find(cwd)
	var w *workspace.Workspace
	if inWorkspace {
		w = workspace.New(root)
		_ = w.SetReportedWindow(in.SessionID, in.Model.ID, in.ContextWindow.Size)
	}
	var occ *cairn.Occupancy
	if in.TranscriptPath != "" {
		occ, _ = m.occupancy(w, in.SessionID, in.TranscriptPath)
	}
	if u := in.ContextWindow.CurrentUsage; occ == nil && u != nil {
		// No transcript to read (yet): the client's own count of the
		// same reply.
		tokens := cairn.Usage{Input: u.Input, CacheRead: u.CacheRead, CacheCreation: u.CacheCreation}.Context()
		occ = &cairn.Occupancy{Tokens: tokens, Model: in.Model.ID, Window: m.window(w, in.SessionID, in.Model.ID, tokens)}
	}
	if occ != nil {
		parts = append(parts, fmt.Sprintf("ctx %d%% (%dk/%dk)", occ.Percent(), occ.Tokens/1000, occ.Window.CompactAt/1000))
	}
	if w != nil {
		if line := (&loop.Loop{Workspace: w}).ShowingLine(in.SessionID); line != "" {
			parts = append(parts, line)
		}
	}
	if inWorkspace {
		m.Getwd = func() (string, error) { return cwd, nil }
		if st, err := m.openStore(""); err == nil {
			if f, err := cairn.ActiveFrame(ctx, st.frames, m.Getenv("CAIRN_AGENT"), m.now()); err == nil {
				parts = append(parts, fmt.Sprintf("frame %s %s", f.ID, clipLine(f.Title, 40)))
			}
			st.Close()
		}
		if e, _, err := workspace.ActiveEngagement(root); err == nil && e != "" {
			parts = append(parts, "engagement "+e)
		}
	}
	if len(parts) == 0 {
		parts = append(parts, "cairn")
	}
	fmt.Fprintln(m.Stdout, strings.Join(parts, " · "))
	return nil
}
