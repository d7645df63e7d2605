#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# A throw-away PostgreSQL cluster for the tests, from Debian's `postgresql` package.
#   Scripts/postgres.sh start   → prints the admin URL (postgres://postgres@127.0.0.1:PORT/postgres?sslmode=disable)
#   Scripts/postgres.sh stop
#   Scripts/postgres.sh halt | resume   → stops / restarts the server, keeping its data and port (readiness tests)
# As root it runs the server as the `postgres` user (PostgreSQL refuses root). State lives in a temporary
# directory recorded, with its port, in STRONGROOM_PG_STATE (default .build/postgres.dir: a test that needs a cluster
# of its own names another file); the first free port from STRONGROOM_PG_PORT (default 54329) is used.
set -euo pipefail
cd "$(dirname "$0")/.."

port="${STRONGROOM_PG_PORT:-54329}"
state="${STRONGROOM_PG_STATE:-.build/postgres.dir}"
bin="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
[ -n "$bin" ] || { echo "error: PostgreSQL is not installed; run Scripts/install-system-deps.sh" >&2; exit 1; }

as_postgres() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts the cluster in $dir on $port and waits until it accepts connections. The server outlives this script, so it
# must not inherit the caller's descriptors beyond 0-2: a parent that waits for those to close (Foundation's Process
# does) would wait as long as PostgreSQL runs.
run_server() {
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd="${fd##*/}"
            [ "$fd" -gt 2 ] && eval "exec $fd>&-"
        done
        as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
            -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=500" start \
            >/dev/null </dev/null
    )
}

case "${1:-}" in
start)
    if [ -f "$state" ]; then
        read -r dir port < "$state"
        if [ -d "$dir/data" ] && "$bin/pg_isready" -q -h 127.0.0.1 -p "$port"; then
            echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
            exit 0
        fi
    fi
    dir="$(mktemp -d /tmp/strongroom-pg.XXXXXX)"
    chmod 755 "$dir"
    [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir"
    mkdir -p "$(dirname "$state")"
    as_postgres "$bin/initdb" -D "$dir/data" -A trust -U postgres -E UTF8 --no-sync >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    for _ in 1 2 3 4 5; do
        # The first port from STRONGROOM_PG_PORT on that nothing listens on (another cluster, another checkout).
        while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
        echo "$dir $port" > "$state"
        if run_server; then
            echo "postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
            exit 0
        fi
        # Another cluster bound the port between the check and the start: try the next one.
        port=$((port + 1))
    done
    cat "$dir/server.log" >&2
    exit 1
    ;;
stop)
    if [ -f "$state" ]; then
        read -r dir port < "$state"
        as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
        rm -rf "$dir" "$state"
    fi
    ;;
halt)
    read -r dir port < "$state"
    as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
resume)
    read -r dir port < "$state"
    run_server || { cat "$dir/server.log" >&2; exit 1; }
    ;;
*)
    echo "usage: Scripts/postgres.sh start|stop|halt|resume" >&2
    exit 2
    ;;
esac
