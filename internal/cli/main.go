// Package cli is the cairn command: its flags, wiring and printing, a thin
// edge over the operations (AGENTS.md). cmd/cairn and cmd/cairn-full are
// its two builds' mains.
package cli

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Run runs cairn with the process's arguments and streams and exits with
// its status. version and commit are what the release stamped into the
// main package (empty in a build without them).
func Run(ver, com string) {
	version, commit = ver, com
	m := NewMain(os.Stdin, os.Stdout, os.Stderr)
	m.ownsProcess = true
	m.startGC()
	if err := m.Run(context.Background(), os.Args[1:]); err != nil {
		var child handedOff
		if !errors.Is(err, flag.ErrHelp) && !errors.As(err, &child) {
			fmt.Fprintln(os.Stderr, "cairn:", errorText(err))
			if cause := errorCause(err); cause != "" && os.Getenv("CAIRN_DEBUG") != "" {
				fmt.Fprintln(os.Stderr, "cairn: cause:", cause)
			}
		}
		os.Exit(exitCode(err))
	}
}

// Main is one invocation of cairn: its streams and environment.
type Main struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	Getenv         func(string) string
	Getwd          func() (string, error)

	ownsProcess bool   // set by Main: a command may tune the process (its collector) for itself
	inHook      bool   // running as a Claude Code hook: short store timeouts, one store
	hookStore   *store // the store a hook opened, shared by its steps
	hookStoreAt string // where it is
}

// NewMain returns a Main for the given streams and the process environment.
func NewMain(stdin io.Reader, stdout, stderr io.Writer) *Main {
	return &Main{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: clientEnv(os.Getenv, runtime.GOOS), Getwd: os.Getwd}
}

// A command is one subcommand: its one-line summary and what runs it.
type command struct {
	summary string
	run     func(m *Main, ctx context.Context, args []string) error
}

// commands is every subcommand, in the order `cairn help` lists them.
var commands = []struct {
	name string
	command
}{
	{"import", command{"inscribe transcripts into the store (incremental)", (*Main).runImport}},
	{"sessions", command{"list sessions", (*Main).runSessions}},
	{"rounds", command{"a session's rounds as an index table", (*Main).runRounds}},
	{"show", command{"a session's rounds in full, or one round", (*Main).runShow}},
	{"export", command{"write a session as JSONL (byte for byte) or Markdown", (*Main).runExport}},
	{"search", command{"full-text search over what users and agents wrote", (*Main).runSearch}},
	{"serve", command{"the engagement viewer: a web page and JSON API on 127.0.0.1", (*Main).runServe}},
	{"reindex", command{"rebuild rounds, blocks and search from stored lines", (*Main).runReindex}},
	{"init", command{"make this folder a workspace: PROJECT.md, state.json, decisions.md, todos.json", (*Main).runInit}},
	{"prime", command{"what a new session must know, from the files, within a budget", (*Main).runPrime}},
	{"state", command{"show or set state.json: phase, task, progress, next steps", (*Main).runState}},
	{"decide", command{"append an architecture decision record to decisions.md", (*Main).runDecide}},
	{"todo", command{"add, start, finish, block and list todos in todos.json", (*Main).runTodo}},
	{"sync", command{"end a session: state stamped, decisions listed, todos reviewed", (*Main).runSync}},
	{"handoff", command{"hand a task to a sub-agent through state.json, and its result back", (*Main).runHandoff}},
	{"checkpoint", command{"write what was done and what comes next on the current board", (*Main).runCheckpoint}},
	{"engage", command{"checkpoint here, trace the move, print the target's board and index", (*Main).runEngage}},
	{"back", command{"engage the previous situation from the trace", (*Main).runBack}},
	{"trace", command{"print the session's trace, or record a move", (*Main).runTrace}},
	{"recover", command{"rebuild where a session was and what it was doing", (*Main).runRecover}},
	{"eval", command{"measure what surgery keeps of a session: eval retention SESSION", (*Main).runEval}},
	{"engagement", command{"start, phase, stop or show the active engagement", (*Main).runEngagement}},
	{"push", command{"start a subtask: a new frame under the current one", (*Main).runPush}},
	{"pop", command{"finish the current frame with results (completed, failed, blocked)", (*Main).runPop}},
	{"plan", command{"sketch planned frames ahead, or edit a planned one", (*Main).runPlan}},
	{"activate", command{"start a planned frame, or resume a blocked one", (*Main).runActivate}},
	{"invalidate", command{"mark a frame no longer relevant (cascades to its plans)", (*Main).runInvalidate}},
	{"tree", command{"the frame tree, status at a glance", (*Main).runTree}},
	{"ready", command{"planned frames whose dependencies are done; --claim takes one", (*Main).runReady}},
	{"context", command{"assemble the active context within a token budget", (*Main).runContext}},
	{"mission", command{"set or show the mission and its progress", (*Main).runMission}},
	{"phase", command{"move to the next phase, or restart the current one", (*Main).runPhase}},
	{"compress-before", command{"rounds before T become an index table, the rest stay full", (*Main).runCompressBefore}},
	{"compress-engagement", command{"a finished engagement's rounds become index lines", (*Main).runCompressEngagement}},
	{"extract-engagement", command{"only one engagement's rounds, in full", (*Main).runExtractEngagement}},
	{"merge", command{"two sessions' rounds interleaved by time, provenance kept", (*Main).runMerge}},
	{"split", command{"fork a session into one child per engagement", (*Main).runSplit}},
	{"inject", command{"one round in full from the store (read-only)", (*Main).runInject}},
	{"revive", command{"compress, export a session (--to claude|codex|gemini|opencode), print how to resume it", (*Main).runRevive}},
	{"advise", command{"which surgical operation to run on a session now", (*Main).runAdvise}},
	{"tag", command{"tag rounds with an engagement; tag suggest finds candidates", (*Main).runTag}},
	{"untag", command{"clear the engagement of rounds", (*Main).runUntag}},
	{"matrix", command{"the engagement × agent matrix of tagged rounds", (*Main).runMatrix}},
	{"install", command{"set Claude Code, Codex, Gemini CLI or opencode up: hooks, MCP server (cairn install claude|codex|gemini|opencode)", (*Main).runInstall}},
	{"uninstall", command{"remove exactly what install added", (*Main).runUninstall}},
	{"doctor", command{"whether cairn works here, and the command that fixes what does not", (*Main).runDoctor}},
	{"mcp", command{"serve cairn's tools to agents over MCP (stdio, or --http ADDR)", (*Main).runMCP}},
	{"hook", command{"run as a Claude Code hook (cairn install claude sets them up)", (*Main).runHook}},
	{"migrate", command{"copy a store into another, e.g. into a team's PostgreSQL", (*Main).runMigrate}},
	{"stats", command{"what the store holds, its size on disk, its keep setting", (*Main).runStats}},
	{"prune", command{"drop sessions older than N days from the store, once or as a setting", (*Main).runPrune}},
	{"scan", command{"list the secrets the store holds, by rule (never printed)", (*Main).runScan}},
	{"suggest", command{"frame operations suggested now (push, pop, plan), with their reasons", (*Main).runSuggest}},
	{"compress-frames", command{"finished frames' rounds become their results; open frames stay full", (*Main).runCompressFrames}},
	{"statusline", command{"one line for Claude Code's status line: context %, frame, engagement", (*Main).runStatusline}},
}

// commandGroups orders `cairn help` by what a command is for.
var commandGroups = []struct{ title, names string }{
	{"Transcripts", "import sessions rounds show export search reindex migrate stats prune scan"},
	{"Surgery", "compress-before compress-engagement compress-frames extract-engagement merge split inject revive advise eval tag untag matrix"},
	{"Frames (the task stack)", "push pop plan activate invalidate tree ready context mission phase suggest"},
	{"Workspace files", "init prime state decide todo sync handoff checkpoint engage back trace recover engagement"},
	{"Agents and people", "install uninstall doctor hook statusline mcp serve"},
}

// Run runs the subcommand named by args[0].
func (m *Main) Run(ctx context.Context, args []string) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		if len(args) > 1 {
			return m.Run(ctx, []string{args[1], "-h"})
		}
		m.usage(m.Stdout)
		return nil
	}
	if args[0] == "--version" || args[0] == "-version" || args[0] == "version" {
		m.printVersion()
		return nil
	}
	if lean && needsFull(args, m.Getenv) {
		return m.handOff(args)
	}
	for _, c := range commands {
		if c.name == args[0] {
			if c.name != "hook" {
				// Ctrl-C cancels ctx: an import stops between
				// transactions, a server shuts down, temporary files are
				// removed. Help and hooks need none of it (Claude Code
				// cancels a hook by aborting its process, which sends
				// SIGTERM, never SIGINT, and a hook's every write is
				// atomic), and watching for a signal costs a process a
				// thread of its own: 1 ms of a hello world on a 2-core VM.
				var stop context.CancelFunc
				ctx, stop = signal.NotifyContext(ctx, os.Interrupt)
				defer stop()
			}
			return c.run(m, ctx, args[1:])
		}
	}
	m.usage(m.Stderr)
	return usageError("unknown command %q", args[0])
}

// usage writes cairn's help in one write: it is what a bare `cairn` or
// `cairn --help` does, and a write per line was most of its cost after
// start-up.
func (m *Main) usage(out io.Writer) {
	w := bufio.NewWriterSize(out, 8<<10)
	defer w.Flush()
	fmt.Fprint(w, `cairn keeps everything your agents did in a durable store and lets you
choose what is active in their context.

Usage: cairn <command> [flags] [arguments]
`)
	listed := map[string]bool{}
	for _, g := range commandGroups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, c := range commands {
			if strings.Contains(" "+g.names+" ", " "+c.name+" ") {
				fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
				listed[c.name] = true
			}
		}
	}
	first := true
	for _, c := range commands {
		if !listed[c.name] {
			if first {
				fmt.Fprint(w, "\nMore:\n")
				first = false
			}
			fmt.Fprintf(w, "  %-20s %s\n", c.name, c.summary)
		}
	}
	fmt.Fprint(w, `
Start here:
  cairn import                 # inscribe ~/.claude/projects and ~/.codex/sessions (re-run any time: only new bytes are read)
  cairn sessions               # what is in the store
  cairn rounds <session>       # one line per round; a session is a uuid or a unique prefix
  cairn search "migration"     # find the round where something was said
  cairn init                   # relay files for every session and sub-agent
  cairn prime                  # what a new session must know (run it first)

The store is .cairn/cairn.db in the nearest folder holding .cairn/, else in the
current folder; --store or CAIRN_STORE choose another file, or a postgres:// URL
for a store a team shares ("cairn migrate" copies one into it).
A workspace command acts as --session, else $CAIRN_SESSION, else
$CLAUDE_CODE_SESSION_ID (what Claude Code gives its agent's commands),
else "default". A Claude Code sub-agent's shell has its parent's
$CLAUDE_CODE_SESSION_ID and nothing of its own (hook payloads name the
sub-agent, the commands it runs cannot see them): cairn's SubagentStart
tells the sub-agent its session, PARENT-agent-ID, to pass as --session.
"cairn <command> -h" says more; "cairn --version" says which cairn this is.
`)
}

// newFlagSet returns a flag set whose usage names the command and teaches
// by example.
func (m *Main) newFlagSet(name, synopsis, help string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(m.Stderr)
	fs.Usage = func() {
		fmt.Fprintf(m.Stderr, "Usage: cairn %s %s\n\n%s\n", name, synopsis, strings.TrimSpace(help))
		var n int
		fs.VisitAll(func(*flag.Flag) { n++ })
		if n > 0 {
			fmt.Fprintln(m.Stderr, "\nFlags:")
			fs.PrintDefaults()
		}
	}
	return fs
}

// A usageErr is a mistake in how cairn was called.
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }

func usageError(format string, args ...any) error {
	return &usageErr{fmt.Sprintf(format, args...)}
}

// errorText is the one line a person reads for err: a domain error's
// message, or the wrapped error as it is.
func errorText(err error) string {
	var e *cairn.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// errorCause is what a domain error translated (a store driver's error),
// for CAIRN_DEBUG=1 and bug reports; "" if nothing.
func errorCause(err error) string {
	var e *cairn.Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err.Error()
	}
	return ""
}

// exitCode maps errors to exit codes: 0 for help asked with -h (as for
// cairn --help), 2 for usage, 1 for everything else. A hook never exits
// 2: Claude Code would take it as "block".
func exitCode(err error) int {
	var h *hookError
	var u *usageErr
	var child handedOff
	switch {
	case err == nil || errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &child):
		return int(child)
	case errors.As(err, &h):
		return 1
	case errors.As(err, &u):
		return 2
	}
	return 1
}
