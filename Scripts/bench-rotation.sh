#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Key rotation benchmark (not a test), release build (docs/design/Revocation.md): a revoke that rotates a type shared
# with READERS readers, beside the same run's plain revoke; then the re-wrap of RECORDS records. Wall and CPU time of
# the client; the server (SQLite) shares this machine's cores.
# Usage: Scripts/bench-rotation.sh [readers, default 1000] [records, default 10000]
set -euo pipefail
cd "$(dirname "$0")/.."
readers="${1:-1000}"
records="${2:-10000}"
case "$readers$records" in *[!0-9]*|'') echo "bench-rotation: READERS and RECORDS are numbers" >&2; exit 64 ;; esac

source Scripts/bench/harness.sh
bench_build
bench_product StrongroomRotationBenchmark
bench_serve server
Benchmarks/.build/release/StrongroomRotationBenchmark "$bench_url" bench-token "$readers" "$records"
