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

source Scripts/bench/harness.sh
bench_build
bench_product StrongroomSyncBenchmark
work="$bench_work"
bench_on_exit "Scripts/postgres.sh stop"

run_engine() {
    local engine="$1"; shift
    bench_serve "$engine-server" "$@"
    local port="$bench_port"
    mkdir -p "$work/$engine-client"
    local bench=Benchmarks/.build/release/StrongroomSyncBenchmark
    "$bench" prepare "http://127.0.0.1:$port" bench-token "$documents" "$work/$engine-client" "$engine"
    "$bench" pull "$work/$engine-client" "$documents"
    "$bench" change "$work/$engine-client" "$documents"
    if [ "$engine" = sqlite ]; then
        "$bench" members "http://127.0.0.1:$port" bench-token "$members" "$work/$engine-client"
        "$bench" live "http://127.0.0.1:$port" bench-token 100 "$work/$engine-client"
    fi
    bench_stop "$bench_pid"
}

run_engine sqlite
pg_admin="$(Scripts/postgres.sh start | tail -1)"
psql "$pg_admin" -qc "CREATE DATABASE syncbench" >/dev/null
run_engine postgres --database-url "${pg_admin/\/postgres\?/\/syncbench?}" --single-instance
