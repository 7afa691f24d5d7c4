#!/usr/bin/env sh
# Installs one release of the real Claude Code client for the end-to-end
# tests and prints the line to export. CI (.ci/setup-claude.sh) runs it for
# both ends of the supported range (versions.env):
#
#   eval "$(internal/claudetest/install.sh)"                              # newest: CAIRN_CLAUDE
#   eval "$(internal/claudetest/install.sh 2.1.197 CAIRN_CLAUDE_OLDEST)"  # oldest
#   go test ./internal/claudetest
#
# Arguments: VERSION (default: CLAUDE_NEWEST in versions.env) and the
# variable to export (default CAIRN_CLAUDE). Each release gets its own npm
# prefix, CC_PREFIX (default /tmp/cairn-claude/VERSION). A binary already at
# the prefix is used only if its --version is VERSION; any other is
# replaced, so a release left there by an earlier run is never tested by
# mistake. The version is always explicit: npm on a node older than 22
# silently resolves an old release when asked for @latest's range. The
# native binary needs no node.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=/dev/null
. "$HERE/versions.env"
VERSION=${1:-$CLAUDE_NEWEST}
VAR=${2:-CAIRN_CLAUDE}
CC_PREFIX=${CC_PREFIX:-/tmp/cairn-claude/$VERSION}
BIN=$CC_PREFIX/node_modules/@anthropic-ai/claude-code-linux-x64/claude

installed() { [ -x "$BIN" ] && "$BIN" --version 2>/dev/null | head -n 1 | cut -d' ' -f1; }

have=$(installed || true)
if [ "$have" != "$VERSION" ] || [ "${CAIRN_CLAUDE_REINSTALL:-}" = 1 ]; then
  [ -z "$have" ] || echo "install.sh: $BIN is claude $have, not $VERSION: reinstalling" >&2
  npm install --silent --prefix "$CC_PREFIX" "@anthropic-ai/claude-code@$VERSION" >&2
  have=$(installed || true)
fi
if [ "$have" != "$VERSION" ]; then
  echo "install.sh: wanted claude $VERSION at $BIN, found '${have:-nothing}'" >&2
  exit 1
fi
echo "install.sh: claude $have at $BIN ($VAR)" >&2
echo "export $VAR=$BIN"
