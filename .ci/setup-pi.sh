# Sourced by .ci/run: installs the real pi coding agent from npm
# (@mariozechner/pi-coding-agent), at both ends of the supported range, for
# the end-to-end tests (sessions it writes imported byte for byte, surgical
# exports it resumes; internal/pitest), and exports CAIRN_PI (the newest)
# and CAIRN_PI_OLDEST. The tests fail without them when CI=true.
#
# The versions are pinned (internal/pitest's Newest and Oldest): the newest
# tested, whose sessions are format version 3 (a tree of entries), and the
# oldest supported, 0.27.9, the last that writes version 1 (a linear list,
# no ids; the newest migrates such a file when it opens it). A release
# already at its prefix is used only if it reports its version (0.73.1
# prints it on standard error; run with HOME at the prefix, since pi makes
# ~/.pi/agent when it starts).
PI_NEWEST=${PI_NEWEST:-0.73.1}
PI_OLDEST=${PI_OLDEST:-0.27.9}
PI_PREFIX=${PI_PREFIX:-/tmp/pi}
pi_install() { # VERSION VAR
  local bin="$PI_PREFIX/$1/node_modules/.bin/pi" found
  found=$([ -x "$bin" ] && HOME="$PI_PREFIX" "$bin" --version 2>&1 | tail -n 1 || true)
  if [ "$found" != "$1" ]; then
    echo "installing @mariozechner/pi-coding-agent@$1 into $PI_PREFIX/$1 (found: $found)"
    npm install --silent --no-save --prefix "$PI_PREFIX/$1" "@mariozechner/pi-coding-agent@$1" >&2
    found=$([ -x "$bin" ] && HOME="$PI_PREFIX" "$bin" --version 2>&1 | tail -n 1 || true)
  fi
  if [ "$found" != "$1" ]; then
    echo "setup-pi.sh: no pi $1 at $bin (found: $found)" >&2
    return 1
  fi
  export "$2=$bin"
  echo "pi $found at $bin"
}
pi_install "$PI_NEWEST" CAIRN_PI || { return 1 2>/dev/null || exit 1; }
pi_install "$PI_OLDEST" CAIRN_PI_OLDEST || { return 1 2>/dev/null || exit 1; }
