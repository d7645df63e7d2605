#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Datastore benchmark (not a test): N ~1 KiB documents inserted batched and M one per transaction, N reads by ID,
# encrypted vs unencrypted vs the raw SQLCipher C API with the same settings, and the open time. Release build;
# every figure is printed beside its anchor from the same run.
# Attachments: N MiB in and out beside raw libsodium secretstream push/pull on the same chunks, and peak RSS.
# Queries: an indexed $eq and a 100-document range, queries/s encrypted vs unencrypted and vs the same selectors
# answered by a full scan; the index build time.
# Usage: Scripts/bench-datastore.sh [documents, default 100000] [one-per-transaction inserts, default 20000]
#        [attachment MiB, default 256]
set -euo pipefail
cd "$(dirname "$0")/.."
documents="${1:-100000}"
singles="${2:-20000}"
mib="${3:-256}"

Scripts/install-system-deps.sh >&2
(cd Benchmarks && swift build -c release --product StrongroomDatastoreBenchmark --disable-build-manifest-caching >&2)
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
Benchmarks/.build/release/StrongroomDatastoreBenchmark "$documents" "$singles" "$work" "$mib"
