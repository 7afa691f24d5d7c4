//go:build !lean

package cli

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/claudecode"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/inscribe"
	"github.com/cairn-dev/cairn/pi"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/retention"
)

func (m *Main) runServe(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("serve", "[flags] [--watch [PATH...]]", `
Serve the engagement viewer: browse sessions as timelines of rounds, search,
tag rounds with engagements, split, extract and revive sessions, and see the
engagement × agent matrix and the frame tree. The JSON API under /api/ calls
what the commands call.

The viewer listens on 127.0.0.1 only. To listen beyond this machine, give
--addr; a token is then generated and printed once, with a one-time URL
that logs a browser in. Programs send it as "Authorization: Bearer TOKEN".

With --watch, the viewer also imports transcripts as they change (PATH as
for cairn import; with none, ~/.claude/projects, watched from when it
appears if it does not exist yet) and open pages show the new
rounds of a running session within a second.

Examples:
  cairn serve                       # http://127.0.0.1:7070/
  cairn serve --watch               # and follow running sessions
  cairn serve --addr 127.0.0.1:0    # any free port
  cairn serve --addr 0.0.0.0:7070   # on the network, with a token`)
	sf.register(fs, false)
	addr := fs.String("addr", "127.0.0.1:7070", "address to listen on")
	watch := fs.Bool("watch", false, "import transcripts as they change and push new rounds to open pages")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 && !*watch {
		fs.Usage()
		return usageError("serve takes paths only with --watch")
	}
	paths := fs.Args()
	for _, p := range paths {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("watch %s: %w", p, err)
		}
	}
	// Without a path, Claude Code's folder, which a machine where the
	// client has not run yet lacks: the viewer serves the store and
	// watches the folder once it appears.
	absent := ""
	if *watch && len(paths) == 0 {
		dir, err := m.claudeProjectsDir()
		if err != nil {
			return err
		}
		if _, err := os.Stat(dir); errors.Is(err, iofs.ErrNotExist) {
			absent = dir
		} else if err != nil {
			return fmt.Errorf("transcripts at %s (where Claude Code keeps them): %w", dir, err)
		}
		paths = []string{dir}
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	s := m.newServer(st)
	s.Addr = *addr
	if !cairnhttp.IsLoopback(*addr) {
		// Beyond this machine: a token, and no secret leaves.
		s.Token = cairnhttp.RandomToken()
		r, err := redact.New()
		if err != nil {
			return fmt.Errorf("redaction rules: %w", err)
		}
		s.Redact = func(text string) string { out, _ := r.Values(text); return out }
		s.RedactHits = func(q string, hits []*cairn.Hit) []*cairn.Hit { hits, _ = redactHits(r, q, hits); return hits }
		s.Searcher = redactedSearcher{st.searcher, r}
	}
	if err := s.Open(); err != nil {
		return err
	}
	defer s.Close()
	if s.Token != "" {
		fmt.Fprintf(m.Stdout, "cairn viewer on %s (beyond this machine: a token is required)\n  token (shown once): %s\n  log a browser in (works once): %s\n", s.URL(), s.Token, s.LoginURL())
	} else {
		fmt.Fprintf(m.Stdout, "cairn viewer: %s/\n", s.URL())
	}
	if absent != "" {
		fmt.Fprintf(m.Stdout, "no transcripts at %s yet (where Claude Code keeps them): watching for the folder to appear\n", absent)
	}
	watched := make(chan error, 1)
	if *watch {
		fmt.Fprintf(m.Stdout, "watching %s for changes\n", strings.Join(paths, ", "))
		im := &inscribe.Importer{Store: importStore{st.inscription, st.lines}, Format: transcripts{}, Keep: st.keep, Now: m.now}
		go func() {
			watched <- im.Watch(ctx, paths, 0, func(fr *inscribe.FileReport, problems []inscribe.Problem) {
				for _, p := range problems {
					fmt.Fprintln(m.Stderr, p)
				}
				if fr.Error != "" {
					fmt.Fprintf(m.Stderr, "%s: %s\n", fr.Path, fr.Error)
				}
				if fr.SessionID != "" {
					s.Notify(fr.SessionID)
				}
			})
		}()
	}
	fmt.Fprintln(m.Stdout, "Ctrl-C stops it.")
	select {
	case <-ctx.Done():
		if *watch {
			<-watched // an import under way ends before the store closes
		}
		return nil
	case err := <-watched:
		return err
	}
}

// newServer returns a viewer over st's services: the ones the commands use.
func (m *Main) newServer(st *store) *cairnhttp.Server {
	s := cairnhttp.NewServer()
	s.Sessions, s.Rounds, s.Searcher, s.Frames = st.sessions, st.rounds, st.searcher, st.frames
	s.Tags, s.Lines, s.Engagements = st.tags, st.lines, st.engagements
	s.Image, s.Patch, s.Tree = claudecode.LineImage, claudecode.EditPatch, sessionTree
	s.OffPath = st.surgery().OffPath
	s.Export = func(ctx context.Context, mat *cairn.Materialization) (*cairnhttp.Exported, error) {
		if len(mat.Sources) == 0 || mat.Sources[0].Project == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "The session records no working directory to resume in: export it with the CLI and --cwd.")
		}
		// A session continues in its own harness.
		export, format := m.exportClaude, "claude"
		switch mat.Sources[0].Agent {
		case cairn.AgentCodex:
			export, format = m.exportCodex, "codex"
		case cairn.AgentGemini:
			export, format = m.exportGemini, "gemini"
		case cairn.AgentPi:
			export, format = m.exportPi, "pi"
		}
		e, err := export(ctx, st, &surgeryFlags{format: format}, mat)
		if err != nil {
			return nil, err
		}
		return &cairnhttp.Exported{ID: e.ID, Path: e.Path, Parents: e.Parents, Resume: e.Resume}, nil
	}
	s.Resume = m.resumeStored
	s.Retention = func(ctx context.Context, id string) (*retention.Report, error) {
		return evaluate(ctx, st, id)
	}
	return s
}

// resumeStored returns the command that resumes a session the store holds,
// as the export that wrote it printed it.
func (m *Main) resumeStored(sess *cairn.Session) string {
	switch sess.Agent {
	case cairn.AgentCodex:
		return "cd " + cairn.ShellQuote(sess.Project) + " && codex resume " + sess.ID
	case cairn.AgentGemini:
		return "cd " + cairn.ShellQuote(sess.Project) + " && gemini --resume " + sess.ID
	}
	projects, err := m.claudeProjectsDir()
	if err != nil {
		return "cd " + cairn.ShellQuote(sess.Project) + " && claude --resume " + sess.ID
	}
	cmd, _ := resumeCommand(sess.Path, filepath.Join(projects, claudecode.ProjectDirName(sess.Project)), sess.Project, sess.ID)
	return cmd
}

// evaluate is `cairn eval retention` of one session, as the viewer and the MCP
// server ask for it.
func evaluate(ctx context.Context, st *store, id string, shares ...float64) (*retention.Report, error) {
	s, err := st.sessions.FindSessionByID(ctx, id)
	if err != nil {
		return nil, err
	}
	rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: s.ID, WithBlocks: true})
	if err != nil {
		return nil, err
	}
	return retention.Evaluate(ctx, st.surgery(), s, rounds, claudeClient(s), shares...)
}

// sessionTree is the viewer's [cairnhttp.TreeFunc]: pi's sessions are
// trees, whose branches left the viewer shows apart; the other harnesses'
// are not.
func sessionTree(agent string, lines []*cairn.Line) (map[int]bool, map[int]int) {
	if agent != cairn.AgentPi {
		return nil, nil
	}
	return pi.OffPath(lines), pi.Parents(lines)
}
