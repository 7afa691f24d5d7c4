# Sourced by .ci/run: installs the real Claude Code client from npm for the
# end-to-end tests (surgery exports resumed by claude, hooks, MCP) and
# exports CAIRN_CLAUDE. The tests fail without it when CI=true.
eval "$(internal/claudetest/install.sh)"
