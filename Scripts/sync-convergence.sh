#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Replication's seeded convergence proof, long: SEEDS seeds (CI runs 3) of STEPS random creates, updates, deletes and
# replications each, on three replicas of one datastore through a proxy that cuts a seeded share of the replication
# requests after the server has acted; on SQLite, and on PostgreSQL when STRONGROOM_TEST_POSTGRES_URL is set. Every
# seed must end with the replicas agreeing on every document's winner and leaves, every acknowledged revision on
# every replica, and a repeat replicating nothing. The same seeds run the shared-datastore proof (SQLite): owner,
# writer, reader, a member revoked mid-way and a channel reader (SharedConvergenceTests). A failure names its seed:
# rerun with FIRST set to it and SEEDS 1.
#
# Usage: Scripts/sync-convergence.sh SEEDS [STEPS] [FIRST]   (STEPS defaults to 1000, FIRST to 1)
set -euo pipefail
cd "$(dirname "$0")/.."
seeds="${1:?usage: Scripts/sync-convergence.sh SEEDS [STEPS] [FIRST]}"
steps="${2:-1000}"
first="${3:-1}"
case "$seeds$steps$first" in *[!0-9]*) echo "sync-convergence: SEEDS, STEPS and FIRST are numbers" >&2; exit 64 ;; esac

Scripts/install-system-deps.sh >/dev/null
swift build --build-tests >&2
STRONGROOM_SYNC_SEEDS="$seeds" STRONGROOM_SYNC_OPERATIONS="$steps" STRONGROOM_SYNC_SEED="$first" \
    STRONGROOM_SHARED_SYNC_SEEDS="$seeds" STRONGROOM_SHARED_SYNC_OPERATIONS="$steps" STRONGROOM_SHARED_SYNC_SEED="$first" \
    swift test --skip-build --filter 'ConvergenceTests' 2>&1 | grep -E 'convergence:|✘|✔ Test run|error'
