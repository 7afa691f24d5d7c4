#!/usr/bin/env sh
# Installs the real Claude Code client for the end-to-end tests and prints
# the line to export. CI runs:
#
#   eval "$(internal/claudetest/install.sh)"   # sets CAIRN_CLAUDE
#   go test ./internal/claudetest
#
# CC_PREFIX (default /tmp/cc) is the npm prefix. Name the version: the
# package declares node>=22 and npm on an older node silently resolves an
# old release (2.1.197) unless told @latest. The native binary needs no node.
set -eu
CC_PREFIX=${CC_PREFIX:-/tmp/cc}
CLAUDE_VERSION=${CLAUDE_VERSION:-latest}
BIN=$CC_PREFIX/node_modules/@anthropic-ai/claude-code-linux-x64/claude
if [ ! -x "$BIN" ] || [ "${CAIRN_CLAUDE_REINSTALL:-}" = 1 ]; then
  npm install --silent --prefix "$CC_PREFIX" "@anthropic-ai/claude-code@$CLAUDE_VERSION" >&2
fi
[ -x "$BIN" ] || { echo "install.sh: no native binary at $BIN" >&2; exit 1; }
echo "install.sh: $("$BIN" --version 2>/dev/null | head -n 1) at $BIN" >&2
echo "export CAIRN_CLAUDE=$BIN"
