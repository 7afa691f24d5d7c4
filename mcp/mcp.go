// Package mcp serves cairn to agents over the Model Context Protocol: a
// thin adapter from tool calls to the functions the CLI calls (the frame
// stack, the assembler, search, the workspace's checkpoint, engage and
// state). It imports the official SDK as sdk, since this package is
// named mcp.
//
// # Tools
//
// The tool list is sent with every turn, so there are few tools and their
// schemas are small: push, pop, plan, context, search, checkpoint, engage,
// state, inject. Every output
// fits in [Server.MaxChars] and says when it was cut. Every error is a
// tool error (the agent sees it and can correct itself or tell its
// person), with its code named by [errorKinds]: a domain error's message,
// or a generic one for an error that is not a [cairn.Error], never its
// text.
package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/retention"
	"github.com/cairn-dev/cairn/surgery"
	"github.com/cairn-dev/cairn/workspace"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// A Server holds what the tools call. Stores are required; Workspace is
// nil outside a workspace, and the workspace tools then say so.
type Server struct {
	Frames    cairn.FrameStore
	Missions  cairn.MissionStore
	Rounds    cairn.RoundStore
	Searcher  cairn.Searcher
	Workspace *workspace.Workspace

	// Owner is whose current frame push, pop and context act on
	// (cairn's --as, $CAIRN_AGENT).
	Owner string
	// Session is the session the agent acts as, which frames it pushes or
	// plans record ([cairn.Frame.SessionID]): for Claude Code, the
	// $CLAUDE_CODE_SESSION_ID it starts the server with; "" if unknown.
	Session string
	// Popping, when set, is called before a pop of frame id drafts its
	// results: it makes the round in progress readable (the CLI's live
	// import of the session's transcript, which no hook has stored while
	// the agent works) and returns what the pop says once the frame is
	// popped, "" for nothing (then the frame's collapse, as without it).
	Popping func(ctx context.Context, id string) (after func(context.Context) string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxChars caps every tool's output; 0 means [DefaultMaxChars].
	MaxChars int
	// Version is reported to clients.
	Version string

	// Sessions and Lines, when both set, serve the inject tool: one round
	// of any stored session in full, as "cairn inject" prints it.
	Sessions cairn.SessionStore
	Lines    cairn.LineStore

	// Retention, when set, serves the retention tool: what `cairn eval
	// retention` measures of a session, by the same function.
	Retention func(ctx context.Context, session string) (*retention.Report, error)

	// Redact, when set, replaces secrets in every tool's output, errors
	// included, and RedactHits returns the search hits a redacted view
	// shows (their snippets redacted before they are highlighted; none
	// whose query matched only inside a secret). cmd/cairn sets both
	// with --redact, the default beyond loopback.
	Redact     func(string) string
	RedactHits func(query string, hits []*cairn.Hit) []*cairn.Hit
}

// DefaultMaxChars is the output cap: what a Claude Code hook may add too.
const DefaultMaxChars = cairn.HookChars

// errorKinds names each domain error code for the agent, with what to do.
// An internal error is a tool error too: its message when it is a
// [cairn.Error] (a store's says what happened and what to do), else
// [cairn.ErrorMessage]'s generic one, so no SQL or driver text reaches the
// agent.
var errorKinds = map[string]string{
	cairn.ENOTFOUND: "not found",
	cairn.EINVALID:  "invalid",
	cairn.ECONFLICT: "conflict (read again, then retry)",
	cairn.EINTERNAL: "failed",
}

// MCP returns an SDK server with cairn's tools.
func (s *Server) MCP() *sdk.Server {
	version := s.Version
	if version == "" {
		version = "dev"
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "cairn", Version: version}, nil)
	tool(srv, s, "push", "Start a subtask: a frame under your current one (or parent).", s.push)
	tool(srv, s, "pop", "Finish your current frame (or frame) with results.", s.pop)
	tool(srv, s, "plan", "Add a planned frame under your current one (or parent).", s.plan)
	tool(srv, s, "context", "The assembled context: mission, frame stack, relay state, index.", s.context)
	tool(srv, s, "search", "Find rounds of earlier sessions where words were said or tools were used (commands, paths, output, errors); each hit names its round.step; agent keeps one harness's sessions (claude-code, codex, gemini, opencode, pi).", s.search)
	tool(srv, s, "checkpoint", "Write what was done and what comes next on the current board.", s.checkpoint)
	tool(srv, s, "engage", "Checkpoint here, move to another situation (folder), read its board and index.", s.engage)
	tool(srv, s, "state", "Show state.json; with fields, change it.", s.state)
	if s.Sessions != nil && s.Lines != nil {
		tool(srv, s, "inject", "A round, a step or a run of steps of a stored session in full (ref 7, 7.12 or 7.3-7.9, as search hits and index entries name them).", s.inject)
	}
	if s.Retention != nil {
		tool(srv, s, "retention", "What each way of continuing a stored session (revive, compress-before, …) keeps of it, judged strictly: in context, one inject away, lost.", s.retention)
	}
	return srv
}

// tool registers a handler that returns text or an error.
func tool[In any](srv *sdk.Server, s *Server, name, desc string, h func(context.Context, In) (string, error)) {
	sdk.AddTool(srv, &sdk.Tool{Name: name, Description: desc},
		func(ctx context.Context, _ *sdk.CallToolRequest, in In) (*sdk.CallToolResult, any, error) {
			text, err := h(ctx, in)
			if err != nil {
				return s.toolError(err)
			}
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s.cap(s.redact(text))}}}, nil, nil
		})
}

// redact returns text without its secrets when the server redacts.
func (s *Server) redact(text string) string {
	if s.Redact == nil {
		return text
	}
	return s.Redact(text)
}

// toolError maps err to a tool error the agent reads: the kind of its
// code and its message (see [errorKinds]); a code errorKinds lacks fails
// the call.
func (s *Server) toolError(err error) (*sdk.CallToolResult, any, error) {
	code := cairn.ErrorCode(err)
	kind, ok := errorKinds[code]
	if !ok {
		return nil, nil, err
	}
	text := fmt.Sprintf("%s: %s", kind, cairn.ErrorMessage(err))
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: s.cap(s.redact(text))}}}, nil, nil
}

// cap cuts text to MaxChars characters, saying so.
func (s *Server) cap(text string) string {
	max := s.MaxChars
	if max <= 0 {
		max = DefaultMaxChars
	}
	if len(text) <= max {
		return text
	}
	note := fmt.Sprintf("\n…[cut: %d of %d characters shown]", max-100, len(text))
	cut := max - 100
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	return text[:cut] + note
}

func (s *Server) stack() *cairn.Stack { return &cairn.Stack{Frames: s.Frames, Now: s.Now} }

func (s *Server) workspace() (*workspace.Workspace, error) {
	if s.Workspace == nil {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "No cairn workspace here: run cairn init in the project.")
	}
	return s.Workspace, nil
}

type pushIn struct {
	Title    string `json:"title" jsonschema:"a few words"`
	Criteria string `json:"criteria" jsonschema:"what done means, checkably"`
	Parent   string `json:"parent,omitempty" jsonschema:"parent frame id (default: current)"`
}

func (s *Server) push(ctx context.Context, in pushIn) (string, error) {
	parent := in.Parent
	if parent == "" {
		switch cur, err := s.stack().Current(ctx, s.Owner); cairn.ErrorCode(err) {
		case "":
			parent = cur.ID
		case cairn.ENOTFOUND:
		default:
			return "", err
		}
	}
	c, err := s.stack().Push(ctx, parent, &cairn.Frame{Title: in.Title, SuccessCriteria: in.Criteria, SessionID: s.Session}, s.Owner)
	if err != nil {
		return "", err
	}
	return change("pushed", c), nil
}

type popIn struct {
	Results string `json:"results,omitempty" jsonschema:"what was accomplished, produced, decided (default: drafted from the frame's rounds, marked as generated)"`
	Status  string `json:"status,omitempty" jsonschema:"completed (default), failed or blocked"`
	Frame   string `json:"frame,omitempty" jsonschema:"frame id (default: current)"`
}

func (s *Server) pop(ctx context.Context, in popIn) (string, error) {
	id := in.Frame
	if id == "" {
		cur, err := s.stack().Current(ctx, s.Owner)
		if err != nil {
			return "", err
		}
		id = cur.ID
	}
	status := cairn.FrameStatus(in.Status)
	if status == "" {
		status = cairn.FrameCompleted
	}
	var after func(context.Context) string
	if s.Popping != nil {
		after = s.Popping(ctx, id)
	}
	r := cairn.FrameResults{Status: status, Results: in.Results}
	if r.Results == "" && s.Rounds != nil {
		root := ""
		if s.Workspace != nil {
			root = s.Workspace.Root
		}
		f, err := s.Frames.FindFrameByID(ctx, id)
		if err != nil {
			return "", err
		}
		d, _, err := cairn.DraftFrameResults(ctx, s.Rounds, f, cairn.ResultsOptions{Root: root})
		if err == nil {
			r.Results, r.ResultsCompacted, r.Artifacts, r.Decisions = d.Results, d.ResultsCompacted, d.Artifacts, d.Decisions
		} else if status == cairn.FrameCompleted {
			return "", err
		}
	}
	c, err := s.stack().Pop(ctx, id, r)
	if err != nil {
		return "", err
	}
	note := ""
	if after != nil {
		note = after(ctx)
	}
	if note == "" {
		note = s.collapseNote(ctx, id)
	}
	return change("popped", c) + note, nil
}

type planIn struct {
	Title    string `json:"title"`
	Criteria string `json:"criteria,omitempty"`
	Parent   string `json:"parent,omitempty" jsonschema:"parent frame id (default: current)"`
}

func (s *Server) plan(ctx context.Context, in planIn) (string, error) {
	parent := in.Parent
	if parent == "" {
		cur, err := s.stack().Current(ctx, s.Owner)
		if err != nil {
			return "", err
		}
		parent = cur.ID
	}
	c, err := s.stack().Plan(ctx, parent, []*cairn.Frame{{Title: in.Title, SuccessCriteria: in.Criteria, SessionID: s.Session}})
	if err != nil {
		return "", err
	}
	return change("planned", c), nil
}

// change says what a frame operation did, as the CLI does.
func change(verb string, c *cairn.FrameChange) string {
	var b strings.Builder
	for _, f := range c.Create {
		fmt.Fprintf(&b, "%s %s %s [%s]\n", verb, f.ID, f.Title, f.Status)
	}
	for _, f := range c.Update {
		fmt.Fprintf(&b, "%s %s [%s]\n", f.ID, f.Title, f.Status)
	}
	for _, w := range c.Warnings {
		fmt.Fprintf(&b, "warning: %s\n", w)
	}
	return b.String()
}

type contextIn struct {
	Frame string `json:"frame,omitempty" jsonschema:"frame id (default: current)"`
}

func (s *Server) context(ctx context.Context, in contextIn) (string, error) {
	req := assemble.Request{FrameID: in.Frame, Owner: s.Owner, Budget: cairn.DefaultBudget(), Format: assemble.XML}
	req.Budget.Chars = min(req.Budget.Chars, s.maxChars())
	if w := s.Workspace; w != nil {
		prime, err := w.Prime(workspace.DefaultPrimeChars)
		if err != nil {
			return "", err
		}
		req.Relay = []assemble.Document{{Name: "cairn prime", Text: prime}}
	}
	a := &assemble.Assembler{Frames: s.Frames, Missions: s.Missions, Rounds: s.Rounds, Sessions: s.Sessions}
	out, err := a.Assemble(ctx, req)
	if err != nil {
		return "", err
	}
	return out.Text, nil
}

func (s *Server) maxChars() int {
	if s.MaxChars > 0 {
		return s.MaxChars
	}
	return DefaultMaxChars
}

type searchIn struct {
	Query string `json:"query" jsonschema:"words; a word of 3 or more characters also matches the words it begins, one ending in * any"`
	Limit int    `json:"limit,omitempty" jsonschema:"at most this many hits (default 10)"`
	Agent string `json:"agent,omitempty" jsonschema:"only sessions of this harness: claude-code, codex, gemini, opencode or pi (default: all)"`
}

func (s *Server) search(ctx context.Context, in searchIn) (string, error) {
	limit := in.Limit
	if limit <= 0 {
		limit = 10
	}
	switch in.Agent {
	case "", cairn.AgentClaudeCode, cairn.AgentCodex, cairn.AgentGemini, cairn.AgentOpencode, cairn.AgentPi:
	default:
		return "", cairn.Errorf(cairn.EINVALID, "agent must be %s, %s, %s, %s or %s, got %q.", cairn.AgentClaudeCode, cairn.AgentCodex, cairn.AgentGemini, cairn.AgentOpencode, cairn.AgentPi, in.Agent)
	}
	hits, err := s.Searcher.Search(ctx, cairn.SearchQuery{Text: in.Query, Limit: limit, NoSurgery: true, Agent: in.Agent, Steps: true})
	if err != nil {
		return "", err
	}
	if s.RedactHits != nil {
		hits = s.RedactHits(in.Query, hits)
	}
	if len(hits) == 0 {
		return fmt.Sprintf("No round matches %q.", in.Query), nil
	}
	var b strings.Builder
	hl := strings.NewReplacer(cairn.HighlightStart, "**", cairn.HighlightEnd, "**")
	for _, h := range hits {
		kind := string(h.Kind)
		if h.Tool != "" {
			kind += " " + h.Tool
		}
		fmt.Fprintf(&b, "%s round %s %s %s\n  %s\n", h.SessionID, h.Ref, h.Timestamp.UTC().Format("2006-01-02T15:04Z"),
			kind, hl.Replace(strings.Join(strings.Fields(h.Snippet), " ")))
	}
	return b.String(), nil
}

type checkpointIn struct {
	Done string `json:"done" jsonschema:"what was done"`
	Next string `json:"next,omitempty" jsonschema:"what comes next"`
}

func (s *Server) checkpoint(ctx context.Context, in checkpointIn) (string, error) {
	w, err := s.workspace()
	if err != nil {
		return "", err
	}
	at, err := w.Current(".")
	if err != nil {
		return "", err
	}
	if err := w.Checkpoint(at, &cairn.Checkpoint{Done: in.Done, Next: in.Next}); err != nil {
		return "", err
	}
	return fmt.Sprintf("Checkpoint written on %s.", boardPath(at)), nil
}

type engageIn struct {
	To   string `json:"to" jsonschema:"the situation: a folder, relative to the workspace"`
	Why  string `json:"why,omitempty"`
	Done string `json:"done,omitempty" jsonschema:"checkpoint here first: what was done"`
	Next string `json:"next,omitempty" jsonschema:"checkpoint here first: what comes next"`
}

func (s *Server) engage(ctx context.Context, in engageIn) (string, error) {
	w, err := s.workspace()
	if err != nil {
		return "", err
	}
	to, err := w.Situation(w.Root + "/" + strings.TrimPrefix(in.To, "/"))
	if err != nil {
		return "", err
	}
	from, err := w.Current(".")
	if err != nil {
		return "", err
	}
	var c *cairn.Checkpoint
	if in.Done != "" || in.Next != "" {
		c = &cairn.Checkpoint{Done: in.Done, Next: in.Next}
	}
	e, err := w.Engage(from, to, in.Why, c)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Moved %s → %s\n\n=== %s ===\n", e.From, e.To, boardPath(e.To))
	if e.Board.Text == "" {
		b.WriteString("(no board yet)\n")
	} else {
		b.WriteString(e.Board.Text)
	}
	if e.HasIndex {
		fmt.Fprintf(&b, "\n=== index.md ===\n%s", e.Index)
	} else {
		fmt.Fprintf(&b, "\n(no index.md; the folder holds: %s)\n", strings.Join(e.Listing, " "))
	}
	return b.String(), nil
}

func boardPath(situation string) string {
	if situation == "." {
		return cairn.BoardFile
	}
	return situation + "/" + cairn.BoardFile
}

type stateIn struct {
	Task      string   `json:"task,omitempty" jsonschema:"set the current task"`
	Doing     *string  `json:"doing,omitempty" jsonschema:"set what is in progress"`
	Completed []string `json:"completed,omitempty" jsonschema:"add completed items"`
	Next      []string `json:"next,omitempty" jsonschema:"replace the next steps"`
}

func (s *Server) state(ctx context.Context, in stateIn) (string, error) {
	w, err := s.workspace()
	if err != nil {
		return "", err
	}
	change := workspace.StateChange{Task: in.Task, InProgress: in.Doing, Completed: in.Completed, NextSteps: in.Next}
	var st *cairn.State
	if change.IsZero() {
		st, err = w.ReadState()
	} else {
		st, err = w.UpdateState(func(st *cairn.State) error { return change.Apply(st) })
	}
	if err != nil {
		return "", err
	}
	out, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return "", err
	}
	return string(out), nil
}

type injectIn struct {
	Session  string `json:"session" jsonschema:"session id or unique prefix"`
	Round    int    `json:"round,omitempty" jsonschema:"a round number (or give ref)"`
	Step     int    `json:"step,omitempty" jsonschema:"only this step of the round (a search hit's round.step)"`
	Ref      string `json:"ref,omitempty" jsonschema:"what to print: a round (7), a step (7.12) or a run of steps (7.3-7.9), as index entries and search hits name them"`
	Fidelity string `json:"fidelity,omitempty" jsonschema:"how much of the round's process: full (default), partial, text, or thinking=…,tool_use=…,tool_result=… each full, summary or omit"`
}

func (s *Server) inject(ctx context.Context, in injectIn) (string, error) {
	fid := cairn.FullFidelity
	if in.Fidelity != "" {
		var err error
		if fid, err = cairn.ParseFidelity(in.Fidelity); err != nil {
			return "", err
		}
	}
	ref := surgery.Ref{Round: in.Round, From: in.Step, To: in.Step}
	if in.Ref != "" {
		var err error
		if ref, err = surgery.ParseRef(in.Ref); err != nil {
			return "", err
		}
	}
	st := surgery.Store{Sessions: s.Sessions, Rounds: s.Rounds, Lines: s.Lines}
	mat, err := surgery.InjectRef(ctx, st, in.Session, ref, fid)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := export.MaterializationMarkdown(&b, mat); err != nil {
		return "", err
	}
	return b.String(), nil
}

type retentionIn struct {
	Session string `json:"session" jsonschema:"session id or unique prefix"`
}

// retention is `cairn eval retention` of one session, as its table.
func (s *Server) retention(ctx context.Context, in retentionIn) (string, error) {
	rep, err := s.Retention(ctx, in.Session)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	if err := retention.Table(&b, rep.Probes, rep.Scores); err != nil {
		return "", err
	}
	return b.String(), nil
}
