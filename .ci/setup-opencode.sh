# Sourced by .ci/run: installs two releases of the real opencode client
# from npm (opencode-ai, whose native binary comes in opencode-linux-x64)
# for the end-to-end tests (internal/opencodetest: sessions it writes
# imported, surgical exports and cross-harness revives it continues, the
# plugin cairn installs) and exports CAIRN_OPENCODE and
# CAIRN_OPENCODE_OLDEST. The tests fail without them when CI=true.
#
# The versions are pinned (internal/opencodetest/opencodetest.go names the
# same): the newest tested, which keeps sessions in opencode.db, and the
# oldest supported, the last of the JSON storage era. A binary already at
# the prefix is used only if it reports its version.
OPENCODE_VERSION=${OPENCODE_VERSION:-1.18.33}
OPENCODE_OLDEST_VERSION=${OPENCODE_OLDEST_VERSION:-1.1.65}
OPENCODE_PREFIX=${OPENCODE_PREFIX:-/tmp/opencode}
opencode_bin() { echo "$OPENCODE_PREFIX/$1/node_modules/opencode-linux-x64/bin/opencode"; }
opencode_version() { [ -x "$(opencode_bin "$1")" ] && "$(opencode_bin "$1")" --version 2>/dev/null; }
for v in "$OPENCODE_VERSION" "$OPENCODE_OLDEST_VERSION"; do
  if [ "$(opencode_version "$v")" != "$v" ]; then
    echo "installing opencode-ai@$v into $OPENCODE_PREFIX/$v (found: $(opencode_version "$v" || true))"
    npm install --silent --no-save --prefix "$OPENCODE_PREFIX/$v" "opencode-ai@$v" >&2
  fi
  if [ "$(opencode_version "$v")" != "$v" ]; then
    echo "setup-opencode.sh: no opencode $v at $(opencode_bin "$v") (found: $(opencode_version "$v" || true))" >&2
    return 1 2>/dev/null || exit 1
  fi
done
CAIRN_OPENCODE=$(opencode_bin "$OPENCODE_VERSION")
CAIRN_OPENCODE_OLDEST=$(opencode_bin "$OPENCODE_OLDEST_VERSION")
export CAIRN_OPENCODE CAIRN_OPENCODE_OLDEST
echo "opencode $OPENCODE_VERSION at $CAIRN_OPENCODE, $OPENCODE_OLDEST_VERSION at $CAIRN_OPENCODE_OLDEST"
