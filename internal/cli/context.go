package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/assemble"
)

func (m *Main) runContext(ctx context.Context, args []string) error {
	var ff frameFlags
	fs := m.newFlagSet("context", "[flags]", `
Assemble the active context for your current frame (or --frame): the
mission core, the frame's own working state and log, its ancestors' goals,
its siblings' results and plans, relay files, and an index of files to
read on demand, within a token and a character budget.

Sections that do not fit degrade, full → compacted → one line → dropped,
and the output says what was cut. The current frame's success criteria are
never dropped; with a tiny budget they are cut short last, and marked.
Tokens are counted with the cl100k_base BPE, offline.

The default character cap (10,000) fits a Claude Code SessionStart hook.

Examples:
  cairn context
  cairn context --budget 2000 --format markdown
  cairn context --frame crud --relay PROJECT.md --relay todos.json --file docs/design.md
  cairn context --chars 10000 --budget 0 --stats`)
	ff.storeFlags.register(fs, false)
	fs.StringVar(&ff.owner, "as", m.Getenv("CAIRN_AGENT"), "whose current frame (default $CAIRN_AGENT)")
	def := cairn.DefaultBudget()
	tokens := fs.Int("budget", def.Tokens, "token cap (0: none)")
	chars := fs.Int("chars", def.Chars, "character cap (0: none)")
	format := fs.String("format", "xml", "xml, markdown or json")
	frame := fs.String("frame", "", "the frame to assemble for (default: your current frame)")
	stats := fs.Bool("stats", false, "print tokens, characters and cuts to stderr")
	var files, relay listFlag
	fs.Var(&files, "file", "a file to list in the index (repeat)")
	fs.Var(&relay, "relay", "a file to carry in the context while it fits (repeat)")
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	f, err := assemble.ParseFormat(*format)
	if err != nil {
		return usageError("%s", cairn.ErrorMessage(err))
	}
	req := assemble.Request{FrameID: *frame, Owner: ff.owner, Budget: def, Format: f}
	req.Budget.Tokens, req.Budget.Chars = *tokens, *chars
	for _, p := range files {
		req.Files = append(req.Files, assemble.File{Path: p})
	}
	for _, p := range relay {
		buf, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		req.Relay = append(req.Relay, assemble.Document{Name: filepath.ToSlash(p), Text: string(buf)})
	}
	st, err := m.readStore(ff.store)
	if err != nil {
		return err
	}
	defer st.Close()
	a := &assemble.Assembler{Frames: st.frames, Missions: st.missions, Rounds: st.rounds, Sessions: st.sessions}
	v, err := a.View(ctx, req)
	if err != nil {
		return err
	}
	if v.Empty() {
		fmt.Fprintln(m.Stderr, `cairn context: nothing to assemble: no mission, no frame in progress, no --relay or --file. Start with: cairn mission set "…", cairn push "…" --criteria "…"`)
	}
	bpe, err := assemble.BPE()
	if err != nil {
		return fmt.Errorf("load tokenizer: %w", err)
	}
	out, err := assemble.Build(v, req.Budget, req.Format, bpe)
	if err != nil {
		return err
	}
	if _, err := fmt.Fprint(m.Stdout, out.Text); err != nil {
		return err
	}
	if *stats {
		fmt.Fprintf(m.Stderr, "context: %d tokens (cap %d), %d chars (cap %d), frame %s, cuts: %s\n",
			out.Tokens, req.Budget.Tokens, out.Chars, req.Budget.Chars, orNone(out.Frame), cutsText(out.Cuts))
	}
	return nil
}

// cutsText is what the budget took, for a person: "none", or each cut as
// section item→fidelity.
func cutsText(cuts []cairn.Cut) string {
	if len(cuts) == 0 {
		return "none"
	}
	parts := make([]string, len(cuts))
	for i, c := range cuts {
		parts[i] = fmt.Sprintf("%s %s→%s", c.Section, c.Item, c.To)
		if c.Truncated {
			parts[i] += " (cut short)"
		}
	}
	return strings.Join(parts, ", ")
}
