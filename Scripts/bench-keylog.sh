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

Scripts/install-system-deps.sh >&2
swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
(cd Benchmarks && swift build -c release --product StrongroomKeyLogBenchmark --disable-build-manifest-caching >&2)
work="$(mktemp -d)"
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null; Scripts/postgres.sh stop >/dev/null 2>&1 || true; rm -rf "$work"; }
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

echo "== appends (strongroom-server keylog speed)"
.build/release/strongroom-server keylog speed --events "$appends" --batch 1000
# The test cluster runs with fsync off (Scripts/postgres.sh): a floor for a real deployment's commit cost, not a bound.
if url="$(Scripts/postgres.sh start 2>/dev/null)"; then
    psql "$url" -q -c "DROP DATABASE IF EXISTS keylog_speed" -c "CREATE DATABASE keylog_speed" >/dev/null
    .build/release/strongroom-server keylog speed --events "$appends" --batch 1000 \
        --database-url "${url/\/postgres\?/\/keylog_speed?}"
fi

echo "== proofs and the SDK"
port="$(free_port)"
.build/release/strongroom-server serve --port "$port" --log-level error --registration-token bench-token \
    --data-directory "$work/data" &
server_pid=$!
for _ in $(seq 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
Benchmarks/.build/release/StrongroomKeyLogBenchmark "$leaves" "http://127.0.0.1:$port" bench-token
