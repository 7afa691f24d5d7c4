# Sourced by .ci/run: installs the real Codex CLI from npm for the
# end-to-end tests (rollouts it writes inscribed byte for byte, surgical
# exports and cross-harness revives it resumes; internal/codextest) and
# exports CAIRN_CODEX. The tests fail without it when CI=true.
#
# The version is pinned: the tests were run against it, and Codex's rollout
# format drifts between releases. A binary already at the prefix is used
# only if it reports that version; otherwise the pinned one is installed.
CODEX_VERSION=${CODEX_VERSION:-0.169.0}
CODEX_PREFIX=${CODEX_PREFIX:-/tmp/codex}
CAIRN_CODEX=$CODEX_PREFIX/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex
codex_version() { [ -x "$CAIRN_CODEX" ] && "$CAIRN_CODEX" --version 2>/dev/null | awk '{print $2}'; }
if [ "$(codex_version)" != "$CODEX_VERSION" ]; then
  echo "installing @openai/codex@$CODEX_VERSION into $CODEX_PREFIX (found: $(codex_version || true))"
  npm install --silent --prefix "$CODEX_PREFIX" "@openai/codex@$CODEX_VERSION" >&2
fi
if [ "$(codex_version)" != "$CODEX_VERSION" ]; then
  echo "setup-codex.sh: no codex $CODEX_VERSION at $CAIRN_CODEX (found: $(codex_version || true))" >&2
  return 1 2>/dev/null || exit 1
fi
export CAIRN_CODEX
echo "codex $(codex_version) at $CAIRN_CODEX"
