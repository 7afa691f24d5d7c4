# Sourced by .ci/run: installs the real Gemini CLI from npm, at both ends of
# the supported range, for the end-to-end tests (sessions it writes
# inscribed byte for byte, surgical exports and cross-harness revives it
# resumes, its hooks; internal/geminitest), and exports CAIRN_GEMINI (the
# newest) and CAIRN_GEMINI_OLDEST. The tests fail without them when CI=true.
#
# The versions are pinned (internal/geminitest's Newest and Oldest): the
# tests were run against them, and the session format changed between them
# (0.30.0 rewrites one .json document, 0.61.0 appends JSONL). A release
# already at its prefix is used only if it reports its version.
GEMINI_NEWEST=${GEMINI_NEWEST:-0.61.0}
GEMINI_OLDEST=${GEMINI_OLDEST:-0.30.0}
GEMINI_PREFIX=${GEMINI_PREFIX:-/tmp/gemini}
gemini_install() { # VERSION VAR
  local bin="$GEMINI_PREFIX/$1/node_modules/.bin/gemini" found
  found=$([ -x "$bin" ] && "$bin" --version 2>/dev/null || true)
  if [ "$found" != "$1" ]; then
    echo "installing @google/gemini-cli@$1 into $GEMINI_PREFIX/$1 (found: $found)"
    npm install --silent --prefix "$GEMINI_PREFIX/$1" "@google/gemini-cli@$1" >&2
    found=$([ -x "$bin" ] && "$bin" --version 2>/dev/null || true)
  fi
  if [ "$found" != "$1" ]; then
    echo "setup-gemini.sh: no gemini $1 at $bin (found: $found)" >&2
    return 1
  fi
  export "$2=$bin"
  echo "gemini $found at $bin"
}
gemini_install "$GEMINI_NEWEST" CAIRN_GEMINI || { return 1 2>/dev/null || exit 1; }
gemini_install "$GEMINI_OLDEST" CAIRN_GEMINI_OLDEST || { return 1 2>/dev/null || exit 1; }
