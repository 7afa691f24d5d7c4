#!/usr/bin/env bash
# A snapshot release, offline: GoReleaser builds both binaries for the six
# targets from this checkout (.goreleaser.yaml) into dist/, with archives
# and checksums, and nothing is published. Go modules come from the module
# cache only (GOPROXY=off). GoReleaser is $GORELEASER, else goreleaser on
# PATH, else the pinned version installed once into $CAIRN_TOOLS (the one
# step that needs the module proxy).
#   scripts/snapshot.sh          # then: ls dist/
#   scripts/snapshot.sh check    # goreleaser check of the config only
#                                # (outside CI, skipped loudly if not installed)
set -euo pipefail
cd "$(dirname "$0")/.."
version=v2.15.1 # the newest that builds with go1.26
tools=${CAIRN_TOOLS:-${XDG_CACHE_HOME:-$HOME/.cache}/cairn-tools/goreleaser-$version}
gr=${GORELEASER:-}
if [ -z "$gr" ]; then
  if [ -x "$tools/goreleaser" ]; then
    gr=$tools/goreleaser
  elif command -v goreleaser >/dev/null && goreleaser --version 2>/dev/null | grep -q "${version#v}"; then
    gr=$(command -v goreleaser)
  elif [ "${1:-}" = check ] && [ "${CI:-}" != true ]; then
    echo "SKIPPED: goreleaser check: no goreleaser $version here (CI installs it; so does scripts/snapshot.sh)" >&2
    exit 0
  else
    echo "installing goreleaser $version into $tools" >&2
    GOBIN=$tools GOFLAGS=-mod=mod go install "github.com/goreleaser/goreleaser/v2@$version"
    gr=$tools/goreleaser
  fi
fi
if [ "${1:-}" = check ]; then
  exec "$gr" check
fi
GOPROXY=off GOTOOLCHAIN=local GOFLAGS=-mod=readonly "$gr" release --snapshot --clean
echo
ls -l dist/*.tar.gz dist/*.zip dist/checksums.txt
