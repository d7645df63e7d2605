#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Seeded crash points, many of them: the `strongroom` command (datastore import, rekey, attach; keychain store;
# `store sync` pulling and pushing; `revoke`, its socket writes counted too) and the server's group commit on SQLite,
# each SIGKILLed just before its Nth durable operation at POINTS seeded points per workload (CI runs 4). Every run
# must end with a store that opens, passes its integrity check and holds every acknowledged write (a sync: and
# converges when run again; a revoke: finished by running it again). A failure names its workload, point and seed:
# rerun with the same SEED to reproduce.
#
# Usage: Scripts/crash-points.sh POINTS [SEED]   (SEED defaults to 1)
set -euo pipefail
cd "$(dirname "$0")/.."
points="${1:?usage: Scripts/crash-points.sh POINTS [SEED]}"
seed="${2:-1}"
case "$points$seed" in *[!0-9]*) echo "crash-points: POINTS and SEED are numbers" >&2; exit 64 ;; esac

Scripts/install-system-deps.sh >/dev/null
swift build --build-tests >&2
STRONGROOM_CRASH_POINTS="$points" STRONGROOM_CRASH_SEED="$seed" \
    swift test --skip-build --filter 'CrashPointTests|CLISyncTests/killedMidSync|CLIRevokeCrashTests' 2>&1 | grep -E 'crash points:|✘|✔ Test run|error'
