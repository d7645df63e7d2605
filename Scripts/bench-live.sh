#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Live replication's fan-out (not a test), release build: 1 and SUBSCRIBERS separate clients each holding a long-poll
# (POST /v2/sync/changes) while one writer writes ROUNDS records, one at a time: write-to-arrival p50/p99/max and
# GET /health beside it, on one SQLite instance and on two instances on one PostgreSQL (writes through one,
# long-polls on the other: the write reaches them through LISTEN/NOTIFY). Server, database and clients share this
# machine's cores.
# Usage: Scripts/bench-live.sh [subscribers, default 1000] [rounds, default 20]
set -euo pipefail
cd "$(dirname "$0")/.."
subscribers="${1:-1000}"
rounds="${2:-20}"
case "$subscribers$rounds" in *[!0-9]*|'') echo "bench-live: SUBSCRIBERS and ROUNDS are numbers" >&2; exit 64 ;; esac

source Scripts/bench/harness.sh
bench_build
bench_product StrongroomLiveBenchmark
bench_on_exit "Scripts/postgres.sh stop"
bench=Benchmarks/.build/release/StrongroomLiveBenchmark
# Each long-poll is a connection: room for them in this shell's descriptors and in the servers' connection caps.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
echo "strongroom live fan-out benchmark: loopback, $(nproc) cores"

echo "== SQLite, one instance"
bench_serve sqlite --maximum-connections 4096
for count in 1 "$subscribers"; do
    STRONGROOM_BENCH_SERVER_PIDS="$bench_pid" "$bench" "$bench_url" "$bench_url" bench-token "$count" "$rounds"
done
bench_stop "$bench_pid"

echo "== PostgreSQL, two instances (writes through A, long-polls on B)"
pg_admin="$(Scripts/postgres.sh start | tail -1)"
psql "$pg_admin" -qc "DROP DATABASE IF EXISTS livebench" -qc "CREATE DATABASE livebench" >/dev/null
database="${pg_admin/\/postgres\?/\/livebench?}"
STRONGROOM_TOKEN_KEY="$(head -c 32 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
export STRONGROOM_TOKEN_KEY
bench_serve a --database-url "$database" --maximum-connections 4096
a_url="$bench_url" a_pid="$bench_pid"
bench_serve b --database-url "$database" --maximum-connections 4096
b_url="$bench_url" b_pid="$bench_pid"
# PostgreSQL's own processes are not counted: the CPU line is the two instances' and this client's.
for count in 1 "$subscribers"; do
    STRONGROOM_BENCH_SERVER_PIDS="$a_pid $b_pid" "$bench" "$a_url" "$b_url" bench-token "$count" "$rounds"
done
