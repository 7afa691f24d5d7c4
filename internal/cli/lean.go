//go:build lean

package cli

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// lean is true in the lean build (go build -tags lean), the one installed
// as cairn: what needs the MCP SDK, net/http or pgx is handed to
// cairn-full before it starts (build.go), so these stand-ins are only
// reached if that check missed a case, and then say so.
const lean = true

func (m *Main) runMCP(_ context.Context, args []string) error {
	return m.handOff(append([]string{"mcp"}, args...))
}

func (m *Main) runServe(_ context.Context, args []string) error {
	return m.handOff(append([]string{"serve"}, args...))
}

func openPostgres(string, time.Duration, time.Duration) (*store, error) {
	return nil, leanLacks("a PostgreSQL store")
}

type messagesAPI struct{}

func newMessagesAPI(func(string) string, string) *messagesAPI { return &messagesAPI{} }

func (*messagesAPI) url() string  { return "" }
func (*messagesAPI) note() string { return "" }

func (*messagesAPI) Ask(context.Context, string, string) (string, error) {
	return "", leanLacks("a model's API (eval --model)")
}

func leanLacks(what string) error {
	return cairn.Errorf(cairn.EINVALID, "This cairn is the lean build, without %s: run cairn-full with the same arguments.", what)
}
