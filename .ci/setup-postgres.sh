# shellcheck shell=bash
# Sourced by .ci/run: start a scratch PostgreSQL for the postgres store's
# tests and export CAIRN_TEST_POSTGRES, its DSN. Idempotent: a reachable
# CAIRN_TEST_POSTGRES is kept as it is; a PostgreSQL missing from the
# machine is installed from Debian's packages. The server lives in a
# temporary folder owned by the postgres user, listens on 127.0.0.1 only,
# and is stopped (and its folder removed) when the sourcing shell exits.
#
# To keep a server for your own runs: bash -c 'source .ci/setup-postgres.sh; echo $CAIRN_TEST_POSTGRES; sleep infinity'

cairn_pg_main() {
  local bin port dir
  if [ -n "${CAIRN_TEST_POSTGRES:-}" ] && command -v pg_isready >/dev/null &&
    pg_isready -q -d "$CAIRN_TEST_POSTGRES"; then
    echo "PostgreSQL already up: $CAIRN_TEST_POSTGRES"
    return 0
  fi

  bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1 || true)
  if [ -z "$bin" ]; then
    echo "installing PostgreSQL from Debian's packages"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
    bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
  fi
  # The Debian package starts a cluster of its own on 5432; ours does not
  # need it and uses a port of its own: the first free one from 54329.
  port=${CAIRN_PG_PORT:-54329}
  while "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" || (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    port=$((port + 1))
  done

  dir=$(mktemp -d /tmp/cairn-pg.XXXXXX)
  chown postgres: "$dir"
  chmod 700 "$dir"
  runuser -u postgres -- "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log" ||
    { cat "$dir/initdb.log"; return 1; }
  # fsync off: a scratch cluster for tests, thrown away when CI ends.
  runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $dir -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
    start >/dev/null || { cat "$dir/server.log"; return 1; }
  for _ in $(seq 1 60); do
    "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" && break
    sleep 0.5
  done
  "$bin/pg_isready" -q -h 127.0.0.1 -p "$port" || { cat "$dir/server.log"; return 1; }

  CAIRN_PG_DIR=$dir
  CAIRN_PG_BIN=$bin
  export CAIRN_TEST_POSTGRES="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
  echo "PostgreSQL $("$bin/postgres" --version | awk '{print $3}') up: $CAIRN_TEST_POSTGRES"

  # Chain onto any EXIT trap already set, so earlier setups still clean up.
  local prev
  prev=$(trap -p EXIT | sed -e "s/^trap -- '//" -e "s/' EXIT\$//")
  # shellcheck disable=SC2064
  trap "cairn_pg_stop; $prev" EXIT
}

cairn_pg_stop() {
  [ -n "${CAIRN_PG_DIR:-}" ] || return 0
  runuser -u postgres -- "$CAIRN_PG_BIN/pg_ctl" -D "$CAIRN_PG_DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  rm -rf "$CAIRN_PG_DIR"
  CAIRN_PG_DIR=
}

cairn_pg_main
