#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Replication benchmark (not a test), release build: N documents of ~1 KiB pushed from one encrypted datastore
# through a local strongroom-server and pulled into another, on SQLite and on PostgreSQL; documents per second
# beside the same documents inserted locally in batches (the floor) and CDTDatastore's published 685 docs/s; the
# peak RSS of the pulling process (a fresh one); then 100 changed documents pushed and pulled. Server, database and
# client share this machine's cores.
# On SQLite also: an owner and two read-write members writing MEMBER-DOCUMENTS each and replicating at once, and the
# write-to-arrival latency of live replication (1,000 writes, p50/p99).
# Usage: Scripts/bench-sync.sh [documents, default 100000] [member documents, default 10000]
set -euo pipefail
cd "$(dirname "$0")/.."
documents="${1:-100000}"
members="${2:-10000}"
case "$documents$members" in *[!0-9]*|'') echo "bench-sync: DOCUMENTS and MEMBER-DOCUMENTS are numbers" >&2; exit 64 ;; esac

Scripts/install-system-deps.sh >&2
swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
(cd Benchmarks && swift build -c release --product StrongroomSyncBenchmark --disable-build-manifest-caching >&2)
work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; Scripts/postgres.sh stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_engine() {
    local engine="$1"; shift
    local port; port="$(free_port)"
    .build/release/strongroom-server serve --port "$port" --log-level error --registration-token bench-token \
        --data-directory "$work/$engine-server" "$@" >"$work/$engine.log" 2>&1 &
    server_pid=$!
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
    mkdir -p "$work/$engine-client"
    local bench=Benchmarks/.build/release/StrongroomSyncBenchmark
    "$bench" prepare "http://127.0.0.1:$port" bench-token "$documents" "$work/$engine-client" "$engine"
    "$bench" pull "$work/$engine-client" "$documents"
    "$bench" change "$work/$engine-client" "$documents"
    if [ "$engine" = sqlite ]; then
        "$bench" members "http://127.0.0.1:$port" bench-token "$members" "$work/$engine-client"
        "$bench" live "http://127.0.0.1:$port" bench-token 100 "$work/$engine-client"
    fi
    kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=""
}

run_engine sqlite
pg_admin="$(Scripts/postgres.sh start | tail -1)"
psql "$pg_admin" -qc "CREATE DATABASE syncbench" >/dev/null
run_engine postgres --database-url "${pg_admin/\/postgres\?/\/syncbench?}" --single-instance
