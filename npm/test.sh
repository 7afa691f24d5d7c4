#!/usr/bin/env bash
# The npm packages installed as a user installs them, offline: npm/pack.sh
# --host packs this platform's, npm installs the tarballs into a scratch
# prefix with an empty cache and no network (--offline), saying nothing of
# install scripts (the package has none: npm 11.19's allowScripts), and the
# installed cairn's first run puts the static binaries in place of the node
# launchers; then it must be the lean binary, say its version, find
# cairn-full beside it (same release: cairn doctor), and run a hook in a
# project it set up.
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
installed=$(HOME=$tmp/home npm install --global --offline --no-audit --no-fund --cache "$tmp/cache" --prefix "$prefix" "$tmp"/pkgs/*.tgz 2>&1)
echo "$installed"
! grep -qi 'script' <<<"$installed" || fail "npm install speaks of scripts: $installed"
launcher() { [ "$(head -c 2 "$(readlink -f "$1")")" = '#!' ]; }
launcher "$prefix/bin/cairn" && launcher "$prefix/bin/cairn-full" || fail "npm installed no node launchers"

export PATH=$prefix/bin:$PATH HOME=$tmp/home
[ "$(command -v cairn)" = "$prefix/bin/cairn" ] || fail "cairn on PATH is $(command -v cairn)"
first=$(cairn --version 2>&1)
! launcher "$prefix/bin/cairn" && ! launcher "$prefix/bin/cairn-full" || fail "PATH's cairn or cairn-full is still the node launcher after the first run ($first)"
echo "first run, through the launcher: $first"
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

# Installed where the user who runs cairn may not write (a root install
# run by another user: nobody here, when root runs this), the node
# launchers stay, silently, and run the platform package's binaries, and
# the lean one still finds cairn-full.
bare=$tmp/bare
npm install --global --offline --ignore-scripts --no-audit --no-fund --cache "$tmp/cache" --prefix "$bare" "$tmp"/pkgs/*.tgz >/dev/null 2>&1
as=()
if [ "$(id -u)" = 0 ]; then
  as=(setpriv --reuid=65534 --regid=65534 --clear-groups)
  chmod 755 "$tmp"
  mkdir -p "$tmp/nobody" && chown 65534 "$tmp/nobody"
else
  chmod a-w "$bare/lib/node_modules/@cairn/cairn/bin"
  mkdir -p "$tmp/nobody"
fi
run_bare() { HOME=$tmp/nobody PATH=$bare/bin:$PATH "${as[@]}" "$@"; }
v=$(run_bare cairn --version 2>"$tmp/bare.err")
chmod u+w "$bare/lib/node_modules/@cairn/cairn/bin"
[ ! -s "$tmp/bare.err" ] || fail "launcher in a folder it may not write says: $(cat "$tmp/bare.err")"
launcher "$bare/bin/cairn" || fail "a launcher in a folder its user may not write was replaced"
case $v in "cairn 0.0.0-test (commit "*", lean build"*) ;; *) fail "launcher: cairn --version: $v" ;; esac
doctor=$(cd "$tmp/nobody" && run_bare cairn doctor --json || true)
grep -A1 '"check": "cairn-full"' <<<"$doctor" | grep -q '"status": "ok"' || fail "launcher: cairn doctor: $doctor"
echo "through the node launcher, in a folder its user may not write: $v; cairn-full ok"
echo "npm/test.sh: ok"
