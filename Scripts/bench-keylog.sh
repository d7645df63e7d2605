#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Key log benchmark (not a test), release build (issue 50): proof sizes at 10^6 leaves beside RFC 9162's bound,
# inclusion verification per proof beside the raw SHA-256 it does, server appends per second in batches with a
# checkpoint every second (SQLite; PostgreSQL too when Scripts/postgres.sh can start it) beside bare inserts of the same
# rows, and the SDK's share and key-lookup rates with verification on beside off against a local server.
# Usage: Scripts/bench-keylog.sh [leaves, default 1000000] [appends, default 200000]
set -euo pipefail
cd "$(dirname "$0")/.."
leaves="${1:-1000000}"
appends="${2:-200000}"
case "$leaves$appends" in *[!0-9]*|'') echo "bench-keylog: LEAVES and APPENDS are numbers" >&2; exit 64 ;; esac

source Scripts/bench/harness.sh
bench_build
bench_product StrongroomKeyLogBenchmark
work="$bench_work"
bench_on_exit "Scripts/postgres.sh stop"

echo "== appends (StrongroomKeyLogSpeed)"
"$bench_bin"/StrongroomKeyLogSpeed --events "$appends" --batch 1000
# The test cluster runs with fsync off (Scripts/postgres.sh): a floor for a real deployment's commit cost, not a bound.
if url="$(Scripts/postgres.sh start 2>/dev/null)"; then
    psql "$url" -q -c "DROP DATABASE IF EXISTS keylog_speed" -c "CREATE DATABASE keylog_speed" >/dev/null
    "$bench_bin"/StrongroomKeyLogSpeed --events "$appends" --batch 1000 \
        --database-url "${url/\/postgres\?/\/keylog_speed?}"
fi

echo "== proofs and the SDK"
bench_serve data
Benchmarks/.build/release/StrongroomKeyLogBenchmark "$leaves" "$bench_url" bench-token
