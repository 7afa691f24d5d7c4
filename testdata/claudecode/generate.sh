#!/usr/bin/env bash
# Regenerates the sample Claude Code transcripts in this folder by driving the REAL
# `claude` client offline against a scripted fake Messages API. Dev-time only: the
# tests read the committed .jsonl files and never run this script.
#
#   ./generate.sh                     # all sessions
#   SESSIONS="tools compact" ./generate.sh
#
# Environment (all optional):
#   FAKE_API        path to fake_anthropic.py (default: ../../../shared/tools/fake_anthropic.py
#                   relative to this script)
#   CLAUDE          path to the native claude binary (default: $CC_PREFIX/node_modules/
#                   @anthropic-ai/claude-code-linux-x64/claude, installed with npm if absent)
#   CC_PREFIX       npm prefix for the client (default /tmp/cc)
#   CLAUDE_VERSION  client version to install when CLAUDE is absent (default 2.1.330)
#   GEN_HOME        scratch HOME, wiped on every run (default /tmp/cchome-gen)
#   PROJ            project folder the sessions run in, wiped on every run
#                   (default /tmp/cairn-sample/proj; it is also recorded in the files)
#   SESSIONS        which scripts/<name>.json to run, in order
#                   (default "tools subagent compact resumed"; later ones see the files
#                   earlier ones created, so run them in this order)
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FAKE_API=${FAKE_API:-$HERE/../../../shared/tools/fake_anthropic.py}
CC_PREFIX=${CC_PREFIX:-/tmp/cc}
CLAUDE_VERSION=${CLAUDE_VERSION:-2.1.330}
CLAUDE=${CLAUDE:-$CC_PREFIX/node_modules/@anthropic-ai/claude-code-linux-x64/claude}
GEN_HOME=${GEN_HOME:-/tmp/cchome-gen}
PROJ=${PROJ:-/tmp/cairn-sample/proj}
SESSIONS=${SESSIONS:-tools subagent compact resumed}

die() { echo "generate.sh: $*" >&2; exit 1; }

[ -f "$FAKE_API" ] || die "fake API not found at $FAKE_API (set FAKE_API)"
case "$GEN_HOME" in
  /tmp/*) ;;
  *) die "GEN_HOME must be a scratch folder under /tmp, got $GEN_HOME" ;;
esac
[ "$GEN_HOME" != "${HOME:-}" ] || die "GEN_HOME must not be your real HOME"
case "$PROJ" in
  /tmp/*) ;;
  *) die "PROJ must be a scratch folder under /tmp, got $PROJ" ;;
esac

if [ ! -x "$CLAUDE" ]; then
  echo "installing @anthropic-ai/claude-code@$CLAUDE_VERSION into $CC_PREFIX" >&2
  # The package declares node>=22; npm on an older node silently resolves an older
  # version unless one is named, so always name it. The native binary needs no node.
  npm install --prefix "$CC_PREFIX" "@anthropic-ai/claude-code@$CLAUDE_VERSION" >&2
fi
VERSION=$(HOME="$GEN_HOME" "$CLAUDE" --version | awk '{print $1}')
echo "claude $VERSION" >&2

# Fresh scratch HOME and project.
rm -rf "$GEN_HOME" "$PROJ"
mkdir -p "$GEN_HOME/work" "$PROJ"
WORK=$GEN_HOME/work   # resolved scripts, request logs, client outputs (not committed)
cp -R "$HERE/scripts/seed/." "$PROJ/"
(
  cd "$PROJ"
  git -c init.defaultBranch=main init -q
  git add -A
  GIT_AUTHOR_DATE=2026-01-05T09:00:00Z GIT_COMMITTER_DATE=2026-01-05T09:00:00Z \
    git -c user.name="Console Dev" -c user.email=dev@example.com commit -q -m "Initial console app"
)

FAKE_PID=
stop_fake() {
  if [ -n "$FAKE_PID" ]; then
    kill "$FAKE_PID" 2>/dev/null || true
    wait "$FAKE_PID" 2>/dev/null || true
    FAKE_PID=
  fi
}
trap stop_fake EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# jget FILE EXPR: print a value of the JSON file (EXPR is Python on `d`).
jget() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

run_claude() { # run_claude PORT OUTFILE ARGS...
  local port=$1 out=$2; shift 2
  (
    cd "$PROJ"
    env -i PATH="$PATH" HOME="$GEN_HOME" LANG=C.UTF-8 TZ=UTC TERM=dumb \
      ANTHROPIC_BASE_URL="http://127.0.0.1:$port" ANTHROPIC_API_KEY=sk-test \
      DISABLE_TELEMETRY=1 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
      GOTOOLCHAIN=local \
      timeout 300 "$CLAUDE" "$@" --output-format json </dev/null >"$out"
  )
}

for name in $SESSIONS; do
  src=$HERE/scripts/$name.json
  [ -f "$src" ] || die "no script $src"
  script=$WORK/$name.json
  sed "s#@PROJ@#$PROJ#g" "$src" >"$script"
  sid=$(jget "$script" 'd["session_id"]')
  allowed=$(jget "$script" 'd["allowed_tools"]')
  nprompts=$(jget "$script" 'len(d["run"])')
  # Optional "builtin_tools": passed as --tools (the built-in tool set offered to the model).
  extra=()
  builtin=$(jget "$script" 'd.get("builtin_tools", "")')
  if [ -n "$builtin" ]; then extra=(--tools "$builtin"); fi
  # Optional "extra_args": more client flags, passed on every run of the session.
  while IFS= read -r a; do
    if [ -n "$a" ]; then extra+=("$a"); fi
  done < <(jget "$script" '"\n".join(d.get("extra_args", []))')

  port=$(free_port)
  FAKE_LOG=$WORK/requests-$name.jsonl python3 "$FAKE_API" "$port" "$script" &
  FAKE_PID=$!
  for _ in $(seq 50); do
    python3 -c 'import socket,sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$port" 2>/dev/null && break
    sleep 0.1
  done

  for ((i = 0; i < nprompts; i++)); do
    prompt=$(jget "$script" "d['run'][$i]")
    out=$WORK/out-$name-$i.json
    if [ "$i" -eq 0 ]; then
      run_claude "$port" "$out" --session-id "$sid" -p "$prompt" --allowedTools "$allowed" "${extra[@]}"
    else
      run_claude "$port" "$out" --resume "$sid" -p "$prompt" --allowedTools "$allowed" "${extra[@]}"
    fi
    got=$(jget "$out" 'd.get("session_id")')
    err=$(jget "$out" 'd.get("is_error")')
    [ "$got" = "$sid" ] || die "$name prompt $i: client reported session $got, expected $sid"
    [ "$err" = "False" ] || die "$name prompt $i: client reported an error (see $out)"
    echo "$name: prompt $((i + 1))/$nprompts done" >&2
  done
  stop_fake
done

# Copy the session files, keeping Claude Code's layout:
#   <session-uuid>.jsonl and <session-uuid>/subagents/agent-*.jsonl (+ .meta.json)
ENC=$(printf '%s' "$PROJ" | sed 's/[^A-Za-z0-9]/-/g')
SRC=$GEN_HOME/.claude/projects/$ENC
[ -d "$SRC" ] || die "no project folder $SRC"
for name in $SESSIONS; do
  sid=$(jget "$HERE/scripts/$name.json" 'd["session_id"]')
  [ -f "$SRC/$sid.jsonl" ] || die "$name: $SRC/$sid.jsonl was not written"
  rm -rf "${HERE:?}/$sid.jsonl" "${HERE:?}/$sid"
  cp "$SRC/$sid.jsonl" "$HERE/"
  if [ -d "$SRC/$sid" ]; then
    cp -R "$SRC/$sid" "$HERE/"
  fi
done
# Check: every line is one JSON object, and each session shows what its script
# "expect"s (substrings of <session>.jsonl; "subagents": a subagents/ folder).
for name in $SESSIONS; do
  sid=$(jget "$HERE/scripts/$name.json" 'd["session_id"]')
  chmod 644 "$HERE/$sid.jsonl"
  if [ -d "$HERE/$sid" ]; then chmod -R u+rwX,go+rX "$HERE/$sid"; fi
  python3 - "$HERE/scripts/$name.json" "$HERE/$sid.jsonl" "$HERE/$sid" <<'PY'
import collections, glob, json, os, sys
script, main, folder = sys.argv[1:]
want = json.load(open(script)).get("expect", [])
files = [main] + sorted(glob.glob(os.path.join(folder, "subagents", "*.jsonl")))
for p in files:
    types = collections.Counter()
    for n, line in enumerate(open(p, encoding="utf-8"), 1):
        o = json.loads(line)
        if not isinstance(o, dict):
            sys.exit("%s:%d: not a JSON object" % (p, n))
        types[o.get("type")] += 1
    print("%s: %d lines %s" % (os.path.relpath(p, os.path.dirname(main)), sum(types.values()), dict(types)), file=sys.stderr)
text = open(main, encoding="utf-8").read()
for w in want:
    if w == "subagents":
        if len(files) < 2:
            sys.exit("%s: no subagents/agent-*.jsonl" % main)
    elif w not in text:
        sys.exit("%s: expected %r" % (main, w))
PY
done
echo "claude $VERSION: sessions written to $HERE" >&2
