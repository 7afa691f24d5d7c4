package cli

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/export"
	"github.com/cairn-dev/cairn/redact"
)

func (m *Main) runExport(ctx context.Context, args []string) error {
	var sf storeFlags
	fs := m.newFlagSet("export", "[flags] SESSION", `
Write a session. --format jsonl writes the stored lines exactly as they were
read: for an imported session, the original transcript byte for byte.
--format markdown writes every round in full for people.

Examples:
  cairn export 5c0375b4 > copy.jsonl
  cairn export --format markdown -o session.md 5c0375b4`)
	sf.register(fs, false)
	format := fs.String("format", "jsonl", "jsonl | markdown")
	out := fs.String("o", "", "write to this file instead of standard output")
	red := redactFlag(fs)
	if err := parseInterspersed(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return usageError("export takes one SESSION")
	}
	if *format != "jsonl" && *format != "markdown" {
		return usageError("--format must be jsonl or markdown, got %q", *format)
	}
	st, err := m.readStore(sf.store)
	if err != nil {
		return err
	}
	defer st.Close()
	sess, err := st.sessions.FindSessionByID(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	var dst io.Writer = m.Stdout
	if *out != "" {
		f, err := os.Create(*out)
		if err != nil {
			return err
		}
		defer f.Close()
		dst = f
	}
	var found []redact.Finding
	rw, err := redactingWriter(*red, dst, &found)
	if err != nil {
		return err
	}
	defer func() {
		if len(found) > 0 {
			fmt.Fprintf(m.Stderr, "redacted %s\n", countRules(found))
		}
	}()
	defer rw.Close()
	w := bufio.NewWriterSize(rw, 1<<20)
	switch *format {
	case "jsonl":
		lines, err := st.lines.FindLines(ctx, sess.ID, 0, 0)
		if err != nil {
			return err
		}
		err = export.JSONL(w, lines)
		if err != nil {
			return err
		}
	case "markdown":
		rounds, err := st.rounds.FindRounds(ctx, cairn.RoundFilter{SessionID: sess.ID, WithBlocks: true})
		if err != nil {
			return err
		}
		if err := export.Markdown(w, sess, rounds); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return rw.Close()
}
