#!/usr/bin/env bash
# npm packages of cairn, the way the coding clients ship theirs: one package
# per platform holding the static binaries (cairn, the lean build, and
# cairn-full), and a main package, @cairn/cairn, with one optional
# dependency per platform, whose install puts cairn and cairn-full on PATH.
# Nothing is downloaded at install time: npm installs the one platform
# package that matches (os, cpu) and skips the others.
#   npm/pack.sh OUT          # binaries from dist/ (scripts/snapshot.sh),
#                            # or from $CAIRN_DIST
#   npm/pack.sh --host OUT   # this platform only, built now with go build
# writes every package's tarball into OUT. The version is GoReleaser's
# (dist/metadata.json), else $CAIRN_VERSION, else 0.0.0-dev.
set -euo pipefail
cd "$(dirname "$0")/.."
host=
if [ "${1:-}" = --host ]; then host=1; shift; fi
out=${1:?usage: npm/pack.sh [--host] OUT}
mkdir -p "$out"
out=$(cd "$out" && pwd)
scope=${CAIRN_NPM_SCOPE:-@cairn}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

dist=${CAIRN_DIST:-dist}
version=${CAIRN_VERSION:-}
if [ -n "$host" ]; then
  dist=$work/dist
  goos=$(go env GOOS) goarch=$(go env GOARCH)
  version=${version:-0.0.0-dev}
  commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
  ld="-s -w -X main.version=$version -X main.commit=$commit"
  exe=; [ "$goos" = windows ] && exe=.exe
  CGO_ENABLED=0 go build -trimpath -tags lean -ldflags "$ld" -o "$dist/cairn_${goos}_${goarch}/cairn$exe" ./cmd/cairn
  CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$dist/cairn-full_${goos}_${goarch}/cairn-full$exe" ./cmd/cairn-full
elif [ -z "$version" ] && [ -f "$dist/metadata.json" ]; then
  version=$(sed -n 's/.*"version":"\([^"]*\)".*/\1/p' "$dist/metadata.json")
fi
version=${version:-0.0.0-dev}
version=${version#v}

# npm's names for GoReleaser's platforms.
npm_os() { case $1 in windows) echo win32 ;; *) echo "$1" ;; esac; }
npm_cpu() { case $1 in amd64) echo x64 ;; *) echo "$1" ;; esac; }

optional=
for lean in "$dist"/cairn_*_*/cairn "$dist"/cairn_*_*/cairn.exe; do
  [ -f "$lean" ] || continue
  dir=$(basename "$(dirname "$lean")")       # cairn_linux_amd64_v1
  IFS=_ read -r _ goos goarch _ <<<"$dir"
  exe=; [ "$goos" = windows ] && exe=.exe
  full=$(ls "$dist"/cairn-full_"${goos}"_"${goarch}"*/cairn-full$exe 2>/dev/null | head -1)
  [ -n "$full" ] || { echo "npm/pack.sh: no cairn-full for $goos/$goarch in $dist" >&2; exit 1; }
  os=$(npm_os "$goos") cpu=$(npm_cpu "$goarch")
  name=$scope/cairn-$os-$cpu
  pkg=$work/pkg-$os-$cpu
  mkdir -p "$pkg/bin"
  cp "$lean" "$pkg/bin/cairn$exe"
  cp "$full" "$pkg/bin/cairn-full$exe"
  chmod 755 "$pkg/bin/"*
  cat >"$pkg/package.json" <<JSON
{
  "name": "$name",
  "version": "$version",
  "description": "cairn's static binaries (cairn and cairn-full) for $os $cpu; install $scope/cairn",
  "license": "MIT",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin/"],
  "preferUnplugged": true
}
JSON
  (cd "$out" && npm pack --silent "$pkg" >/dev/null)
  optional="$optional${optional:+,}
    \"$name\": \"$version\""
done
[ -n "$optional" ] || { echo "npm/pack.sh: no binaries in $dist (run scripts/snapshot.sh, or npm/pack.sh --host)" >&2; exit 1; }

main=$work/main
cp -R npm/cairn "$main"
cat >"$main/package.json" <<JSON
{
  "name": "$scope/cairn",
  "version": "$version",
  "description": "cairn: a context manager for AI coding agents (Claude Code, Codex CLI, Gemini CLI, opencode)",
  "license": "MIT",
  "bin": {
    "cairn": "bin/cairn",
    "cairn-full": "bin/cairn-full"
  },
  "files": ["bin/", "install.js", "README.md"],
  "optionalDependencies": {$optional
  }
}
JSON
(cd "$out" && npm pack --silent "$main" >/dev/null)
ls "$out"
