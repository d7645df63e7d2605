#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Shield benchmark (not a test), release build: Integrity.check() latency (p50/p99, every check) and the file
# protector's MB/s on a large file beside raw secretstream, with the peak RSS. Usage: Scripts/bench-shield.sh [MiB, default 1024] [rounds, default 3]
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install-system-deps.sh >&2
(cd Benchmarks && swift build -c release --product StrongroomShieldBenchmark >&2)
exec Benchmarks/.build/release/StrongroomShieldBenchmark "${1:-1024}" "${2:-3}"
