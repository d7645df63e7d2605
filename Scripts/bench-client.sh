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

source Scripts/bench/harness.sh
Scripts/python-env.sh >&2
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
bench_build
bench_product StrongroomClientBenchmark
work="$bench_work"
bench_serve server
pid="$bench_pid"
url="$bench_url"

echo "Python SDK: $records records, $mib MiB file ..." >&2
.build/python-venv/bin/python Scripts/bench/python_client.py "$url" bench-token "$records" "$mib" "$work" >"$work/python.json"
echo "Swift SDK ..." >&2
STRONGROOM_BENCH_SERVER_PID="$pid" Benchmarks/.build/release/StrongroomClientBenchmark "$url" bench-token "$records" "$work/python.json" "$mib" "$work"
