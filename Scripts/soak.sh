#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# A soak: mixed traffic (the official Python SDK writing, reading, updating, querying, sharing and moving files; the
# Swift CLI writing and reading) against one server for MINUTES, sampling RSS, descriptors, sockets and p50/p99
# every minute (Scripts/testing/soak.py). Fails on any unexpected failure, or on RSS or descriptors growing more
# than 10% after the first five minutes.
#
# Usage: Scripts/soak.sh MINUTES [sqlite|postgres]   (builds strongroom-server and strongroom in release first)
set -euo pipefail
cd "$(dirname "$0")/.."
minutes="${1:?usage: Scripts/soak.sh MINUTES [sqlite|postgres]}"
engine="${2:-sqlite}"

Scripts/install-system-deps.sh >/dev/null
python="$(Scripts/python-env.sh)"
# STRONGROOM_SOAK_BIN: a folder holding already-built binaries (to try the script on a debug build).
if [ -n "${STRONGROOM_SOAK_BIN:-}" ]; then
    bin="$STRONGROOM_SOAK_BIN"
else
    swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
    bin="$(swift build -c release --show-bin-path)"
fi

work="$(mktemp -d /tmp/strongroom-soak.XXXXXX)"
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    [ "$engine" = postgres ] && Scripts/postgres.sh stop >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT

storage=(--data-directory "$work/data")
if [ "$engine" = postgres ]; then
    url="$(Scripts/postgres.sh start)"
    storage+=(--database-url "$url" --single-instance)
fi
"$bin/strongroom-server" serve --port 0 --port-file "$work/port" --registration-token soak-token \
    --authentication-failures-per-minute 1000000 --log-level error "${storage[@]}" >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 300); do [ -s "$work/port" ] && break; sleep 0.1; done
base="http://127.0.0.1:$(cat "$work/port")"
for _ in $(seq 1 100); do curl -sf "$base/health" >/dev/null && break; sleep 0.1; done
echo "soak: $engine, $minutes minutes against $base (server pid $pid)"
"$python" Scripts/testing/soak.py "$base" soak-token "$pid" "$minutes" "$bin/strongroom"
