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

# Every platform of a GoReleaser dist/ (its folder names, stand-in
# binaries): a package each with npm's os and cpu, and the main package
# depending on all six.
for t in linux_amd64_v1 linux_arm64_v8.0 darwin_amd64_v1 darwin_arm64_v8.0 windows_amd64_v1 windows_arm64_v8.0; do
  exe=; case $t in windows*) exe=.exe ;; esac
  mkdir -p "$tmp/dist/cairn_$t" "$tmp/dist/cairn-full_$t"
  echo lean >"$tmp/dist/cairn_$t/cairn$exe"
  echo full >"$tmp/dist/cairn-full_$t/cairn-full$exe"
done
echo '{"project_name":"cairn","tag":"v1.2.2","version":"1.2.3-next"}' >"$tmp/dist/metadata.json"
CAIRN_DIST=$tmp/dist npm/pack.sh "$tmp/all" >/dev/null
for p in linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64; do
  os=${p%-*} cpu=${p#*-} exe=; [ "$os" = win32 ] && exe=.exe
  f=$tmp/all/cairn-cairn-$p-1.2.3-next.tgz
  list=$(tar -xzOf "$f" package/package.json; tar -tzf "$f")
  grep -q "\"os\": \[\"$os\"\]" <<<"$list" && grep -q "\"cpu\": \[\"$cpu\"\]" <<<"$list" &&
    grep -q "package/bin/cairn$exe\$" <<<"$list" && grep -q "package/bin/cairn-full$exe\$" <<<"$list" || fail "$f: $list"
done
main=$(tar -xzOf "$tmp/all/cairn-cairn-1.2.3-next.tgz" package/package.json)
[ "$(grep -c '"@cairn/cairn-[a-z0-9]*-[a-z0-9]*": "1.2.3-next"' <<<"$main")" = 6 ] || fail "main package: $main"
echo "pack of a 6-platform dist: $(ls "$tmp/all" | wc -l) tarballs"

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

# Without the postinstall (--ignore-scripts) the node launchers run the
# platform package's binaries, and the lean one still finds cairn-full.
bare=$tmp/bare
npm install --global --offline --ignore-scripts --no-audit --no-fund --cache "$tmp/cache" --prefix "$bare" "$tmp"/pkgs/*.tgz >/dev/null 2>&1
[ "$(head -c 2 "$(readlink -f "$bare/bin/cairn")")" = '#!' ] || fail "--ignore-scripts: no launcher at $bare/bin/cairn"
v=$(PATH=$bare/bin:$PATH cairn --version)
case $v in "cairn 0.0.0-test (commit "*", lean build"*) ;; *) fail "launcher: cairn --version: $v" ;; esac
doctor=$(PATH=$bare/bin:$PATH cairn doctor --json || true)
grep -A1 '"check": "cairn-full"' <<<"$doctor" | grep -q '"status": "ok"' || fail "launcher: cairn doctor: $doctor"
echo "through the node launcher: $v; cairn-full ok"
echo "npm/test.sh: ok"
