#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Builds the benchmark package in release mode and prints Strongroom's figures beside their anchors.
# Usage: Scripts/bench.sh [file-MiB]   (default 256)
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install-system-deps.sh >&2
cd Benchmarks
swift build -c release --product StrongroomBenchmarks >&2
exec .build/release/StrongroomBenchmarks "$@"
