//go:build !lean

package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/cairn-dev/cairn"
	cairnhttp "github.com/cairn-dev/cairn/http"
	"github.com/cairn-dev/cairn/mcp"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/retention"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

func (m *Main) runMCP(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("mcp", "[flags]", `
Serve cairn to an agent over the Model Context Protocol: on stdin and
stdout (how Claude Code starts it from .mcp.json), or over streamable HTTP
with --http. The tools are few, with small schemas, because their list is
sent with every turn: push, pop, plan, context, search, checkpoint,
engage, state, inject. Each calls what the CLI command of the same name calls.
Outputs are cut at --max-chars, and say so.

Over HTTP, an address beyond this machine requires a token: one is
generated and printed once (or given with --token); clients send it as
Authorization: Bearer TOKEN. Beyond this machine, secrets are redacted
too, as --redact does: in every tool's output, search snippets and
titles, and a search that matches only inside a secret finds nothing.

Examples:
  cairn mcp
  cairn mcp --http 127.0.0.1:7878
  cairn mcp --redact                # no secret reaches the agent
  cairn mcp --http 0.0.0.0:7878     # on the network, with a token, redacted`)
	sf.register(fs, false)
	addr := fs.String("http", "", "serve streamable HTTP on this address (loopback unless you mean otherwise)")
	maxChars := fs.Int("max-chars", mcp.DefaultMaxChars, "cap on each tool's output")
	token := fs.String("token", m.Getenv("CAIRN_TOKEN"), "with --http: require this bearer token (default $CAIRN_TOKEN; generated beyond loopback)")
	var wf wsFlags
	wf.register(fs)
	owner := fs.String("as", m.Getenv("CAIRN_AGENT"), "whose current frame (default $CAIRN_AGENT)")
	red := fs.Bool("redact", false, redactUsage+" (default with --http beyond this machine, where it cannot be turned off)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		fs.Usage()
		return usageError("mcp takes no arguments")
	}
	if *addr != "" && !cairnhttp.IsLoopback(*addr) {
		// Beyond this machine, as the viewer: no secret leaves.
		if flagSet(fs, "redact") && !*red {
			return usageError("--redact=false: beyond this machine (--http %s) the MCP server always redacts", *addr)
		}
		*red = true
	}
	st, err := m.openStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	s := &mcp.Server{Frames: st.frames, Missions: st.missions, Rounds: st.rounds, Searcher: st.searcher,
		Sessions: st.sessions, Lines: st.lines, Owner: *owner, Session: m.knownSession(wf.session), Now: m.now, MaxChars: *maxChars}
	s.Retention = func(ctx context.Context, id string) (*retention.Report, error) { return evaluate(ctx, st, id) }
	s.Popping = func(ctx context.Context, id string) func(context.Context) string {
		l, ev, err := m.popSession(ctx, st, id, wf.session)
		if err != nil {
			return nil
		}
		return func(ctx context.Context) string { return l.PopNote(ctx, ev) }
	}
	if *red {
		r, err := redact.New()
		if err != nil {
			return fmt.Errorf("redaction rules: %w", err)
		}
		s.Redact = func(text string) string { out, _ := r.Values(text); return out }
		s.RedactHits = func(q string, hits []*cairn.Hit) []*cairn.Hit { hits, _ = redactHits(r, q, hits); return hits }
		s.Searcher = redactedSearcher{st.searcher, r}
	}
	switch w, err := m.openWorkspace(wf); cairn.ErrorCode(err) {
	case "":
		s.Workspace = w
	case cairn.ENOTFOUND: // no workspace: its tools say so
	default:
		return err
	}
	if *addr == "" {
		return s.MCP().Run(ctx, &sdk.StdioTransport{})
	}
	srv := s.MCP()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	if *token == "" && !cairnhttp.IsLoopback(*addr) {
		*token = cairnhttp.RandomToken()
		fmt.Fprintf(m.Stderr, "cairn mcp: beyond this machine a token is required\n  token (shown once): %s\n", *token)
	}
	fmt.Fprintf(m.Stderr, "cairn mcp: serving streamable HTTP on http://%s/\n", ln.Addr())
	handler := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return srv }, nil)
	hs := &http.Server{Handler: cairnhttp.Guard(*token, handler), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		hs.Close()
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// flagSet reports whether the flag name was given on the command line.
func flagSet(fs *flag.FlagSet, name string) (set bool) {
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}
