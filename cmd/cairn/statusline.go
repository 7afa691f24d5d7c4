package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"cairn"
	"cairn/claudecode"
	"cairn/workspace"
)

func (m *Main) runStatusline(ctx context.Context, args []string) error {
	fs := m.newFlagSet("statusline", "< status.json", `
Print one line for Claude Code's status line: how full the context is,
the frame in progress and the active engagement, as in

  ctx 72% (144k/200k) · frame f3 Login form · engagement auth

Claude Code runs it with the session's status JSON on stdin (session_id,
transcript_path, cwd) after each message; "cairn install claude
--statusline" sets it up. It reads only the transcript's end, prints
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
	}
	data, _ := io.ReadAll(io.LimitReader(m.Stdin, 1<<20))
	_ = json.Unmarshal(data, &in)
	var parts []string
	var window int64
	cwd := in.Workspace.CurrentDir
	if cwd == "" {
		cwd = in.Cwd
	}
	if cwd == "" {
		cwd, _ = m.Getwd()
	}
	root, inWorkspace := workspace.Find(cwd)
	if inWorkspace {
		if cfg, err := workspace.New(root).ReadConfig(); err == nil {
			window = cfg.ContextWindow
		}
	}
	if in.TranscriptPath != "" {
		// Under the hooks' rule: a FIFO or a link out of the transcript
		// folders shows no percentage, and never holds the line up.
		if f, _ := m.openTranscript(in.TranscriptPath); f != nil {
			if occ, err := claudecode.LastOccupancy(f, window); err == nil && occ != nil {
				parts = append(parts, fmt.Sprintf("ctx %d%% (%dk/%dk)", occ.Percent(), occ.Tokens/1000, occ.Window/1000))
			}
			f.Close()
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
