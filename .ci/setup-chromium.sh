# Sourced by .ci/run: headless Chromium for the viewer's browser tests
# (http/browser_test.go). Debian's package, never a browser a test tool
# downloads. Exports CAIRN_CHROMIUM, the path the tests run.
if ! command -v chromium >/dev/null 2>&1; then
  echo "installing Debian's chromium"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
CAIRN_CHROMIUM=$(command -v chromium)
export CAIRN_CHROMIUM
# Screenshots of each page of the viewer land here.
export CAIRN_ARTIFACTS=${CAIRN_ARTIFACTS:-$PWD/.ci/artifacts}
mkdir -p "$CAIRN_ARTIFACTS"
chromium --version
