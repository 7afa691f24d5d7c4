#!/usr/bin/env bash
# The npm packages installed as a user installs them, offline: npm/pack.sh
# --host packs this platform's, npm installs the tarballs into a scratch
# prefix with an empty cache and no network (--offline), and the installed
# cairn must be the static lean binary (no node launcher left), say its
# version, find cairn-full beside it (same release: cairn doctor), and run
# a hook in a project it set up.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "npm/test.sh: FAIL: $*" >&2; exit 1; }

CAIRN_VERSION=0.0.0-test npm/pack.sh --host "$tmp/pkgs" >/dev/null
ls "$tmp"/pkgs/*.tgz
prefix=$tmp/prefix
HOME=$tmp/home npm install --global --offline --no-audit --no-fund --cache "$tmp/cache" --prefix "$prefix" "$tmp"/pkgs/*.tgz

export PATH=$prefix/bin:$PATH HOME=$tmp/home
[ "$(command -v cairn)" = "$prefix/bin/cairn" ] || fail "cairn on PATH is $(command -v cairn)"
[ "$(head -c 2 "$(readlink -f "$prefix/bin/cairn")")" != '#!' ] || fail "PATH's cairn is still the node launcher"
v=$(cairn --version)
echo "$v"
case $v in "cairn 0.0.0-test (commit "*", lean build"*) ;; *) fail "cairn --version: $v" ;; esac
vf=$(cairn-full --version)
echo "$vf"
case $vf in "cairn 0.0.0-test (commit "*", full build"*) ;; *) fail "cairn-full --version: $vf" ;; esac

mkdir -p "$tmp/proj"
cd "$tmp/proj"
cairn install claude >/dev/null
out=$(printf '{"session_id":"0f0f0f0f-0000-4000-8000-000000000001","hook_event_name":"SessionStart","source":"startup","cwd":"%s"}' "$PWD" | cairn hook SessionStart)
case $out in *hookSpecificOutput*) ;; *) fail "the SessionStart hook printed: $out" ;; esac
echo "hook SessionStart: ${#out} bytes of context"
doctor=$(cairn doctor --json || true)
grep -A1 '"check": "cairn-full"' <<<"$doctor" | grep -q '"status": "ok"' || fail "cairn doctor: $doctor"
echo "cairn doctor: cairn-full ok"
echo "npm/test.sh: ok"
