package export

import (
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
)

// ledgerHeadings introduce the ledger's kinds, in the order shown.
var ledgerHeadings = [...]struct{ kind, heading string }{
	{cairn.LedgerPrompt, "The user's prompts (ROUND: the prompt)"},
	{cairn.LedgerTodo, "The latest todo list"},
	{cairn.LedgerError, "Errors not followed by a success of the same call"},
	{cairn.LedgerArtifact, "Files changed, at their last change"},
	{cairn.LedgerCommand, "Commands run, at their last run, with their outcome"},
	{cairn.LedgerStated, "What the agent said, latest"},
}

// Ledger writes a materialization's ledger ([cairn.Materialization].Ledger):
// a heading per kind, an item a line, each starting with the step it
// comes from ("- 7.12 …", "- 7: " for a round's prompt), which is how the
// summary an agent reads and the Markdown a person reads both show it.
func Ledger(b *strings.Builder, items []cairn.LedgerItem) {
	for _, h := range ledgerHeadings {
		first := true
		for _, it := range items {
			if it.Kind != h.kind {
				continue
			}
			if first {
				fmt.Fprintf(b, "%s:\n", h.heading)
				first = false
			}
			sep := " "
			if it.Step == 0 {
				sep = ": "
			}
			fmt.Fprintf(b, "- %s%s%s\n", it.Ref(), sep, it.Text)
		}
	}
}
