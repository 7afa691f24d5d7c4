# Sourced by .ci/run: installs both ends of the supported range of the real
# Claude Code client (internal/claudetest/versions.env: the oldest supported
# and the newest tested), each into its own npm prefix, checking the
# installed version rather than trusting a binary left at a prefix, and
# exports CAIRN_CLAUDE (newest) and CAIRN_CLAUDE_OLDEST. The real-client
# tests (surgery exports resumed by claude, hooks, MCP) run on both and fail
# without them when CI=true.
# shellcheck source=/dev/null
. internal/claudetest/versions.env
# (eval "$(…)" would hide a failed install: check the substitution first.)
newest=$(internal/claudetest/install.sh "$CLAUDE_NEWEST" CAIRN_CLAUDE) || exit 1
oldest=$(internal/claudetest/install.sh "$CLAUDE_OLDEST" CAIRN_CLAUDE_OLDEST) || exit 1
eval "$newest"
eval "$oldest"
unset newest oldest
