#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Client benchmark (not a test): the Swift SDK and the official Python SDK each write then read N records of five
# 1 KiB fields against the same local release server (SQLite) in the same run, then a file of M MiB each; figures
# are printed side by side with the ratio, and file rates beside the local file-encryption rate.
# Usage: Scripts/bench-client.sh [records, default 1000] [file MiB, default 256]
set -euo pipefail
cd "$(dirname "$0")/.."
records="${1:-1000}"
mib="${2:-256}"

Scripts/install-system-deps.sh >&2
Scripts/python-env.sh >&2
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
(cd Benchmarks && swift build -c release --product StrongroomClientBenchmark >&2)
work="$(mktemp -d)"
pid=""
cleanup() { [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')"
.build/release/strongroom-server serve --port "$port" --log-level error --registration-token bench-token \
    --data-directory "$work/data" >"$work/server.log" 2>&1 &
pid=$!
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
url="http://127.0.0.1:$port"

echo "Python SDK: $records records, $mib MiB file ..." >&2
.build/python-venv/bin/python Scripts/bench/python_client.py "$url" bench-token "$records" "$mib" "$work" >"$work/python.json"
echo "Swift SDK ..." >&2
STRONGROOM_BENCH_SERVER_PID="$pid" Benchmarks/.build/release/StrongroomClientBenchmark "$url" bench-token "$records" "$work/python.json" "$mib" "$work"
