// Command cairn keeps everything an agent did in a durable store and lets
// the agent, or the person steering it, choose what is active in context.
//
// Built with -tags lean (the release's and the README's cairn), it has
// every command and hook on the embedded store and hands the MCP server,
// the viewer, PostgreSQL stores and eval's model API to cairn-full; built
// without, it is the complete build under the name cairn.
package main

import "github.com/cairn-dev/cairn/internal/cli"

// version and commit are stamped by a release build
// (-ldflags "-X main.version=1.2.3 -X main.commit=abc123").
var version, commit string

func main() { cli.Run(version, commit) }
