#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The flake hunt: builds once, then runs every suite RUNS times in a row against that build (one PostgreSQL cluster
# and one RADOS Gateway for all runs, each run in its own private keyring session), and lists every test that failed
# in any run. Run it beside a parallel build (`swift build -c release` in another clone) to hunt the failures that
# only load brings out.
#
# Usage: Scripts/flake-hunt.sh RUNS    (logs in .build/flake-hunt/run-N.log; exit 1 if any run failed)
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:?usage: Scripts/flake-hunt.sh RUNS}"
case "$runs" in '' | *[!0-9]*) echo "flake-hunt: RUNS must be a number" >&2; exit 64 ;; esac

Scripts/install-system-deps.sh --object-store >/dev/null
STRONGROOM_PYTHON="$(Scripts/python-env.sh)"
export STRONGROOM_PYTHON="$PWD/${STRONGROOM_PYTHON#./}"
swift build --build-tests >&2

trap 'Scripts/postgres.sh stop; Scripts/radosgw.sh stop' EXIT
STRONGROOM_TEST_POSTGRES_URL="$(Scripts/postgres.sh start)"
export STRONGROOM_TEST_POSTGRES_URL
STRONGROOM_TEST_S3_URL="$(Scripts/radosgw.sh start)"
export STRONGROOM_TEST_S3_URL

logs=.build/flake-hunt
rm -rf "$logs"
mkdir -p "$logs"
failed=0
for run in $(seq 1 "$runs"); do
    start=$(date +%s)
    if Scripts/with-keyring.sh swift test --skip-build >"$logs/run-$run.log" 2>&1; then
        result=passed
    else
        result=FAILED
        failed=$((failed + 1))
    fi
    echo "run $run: $result in $(($(date +%s) - start)) s (load $(cut -d' ' -f1 /proc/loadavg))" | tee -a "$logs/summary"
    # Swift Testing marks a failed test or issue with ✘; XCTest prints "error:" lines.
    grep -E '✘|error: ' "$logs/run-$run.log" | sed "s/^/  run $run: /" | head -n 40 | tee -a "$logs/summary" || true
done
echo "flake-hunt: $failed of $runs runs failed" | tee -a "$logs/summary"
[ "$failed" -eq 0 ]
