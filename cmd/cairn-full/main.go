// Command cairn-full is cairn's complete build: every command, the MCP
// server, the viewer, PostgreSQL stores and eval's model API. The lean
// cairn runs it in its place for those (found beside it, on PATH or at
// $CAIRN_FULL), so `go install .../cmd/cairn-full@latest` installs it
// under the name the lean build looks for. Build it without -tags lean.
package main

import "github.com/cairn-dev/cairn/internal/cli"

// version and commit are stamped by a release build
// (-ldflags "-X main.version=1.2.3 -X main.commit=abc123").
var version, commit string

func main() { cli.Run(version, commit) }
