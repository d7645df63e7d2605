#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The quick start's main job, timed (issue 47 item 7): a fresh clone of this repository at COMMIT (default HEAD) in a
# temporary folder runs `Scripts/run.sh --port PORT`, and the script prints the seconds until `/health` answers,
# then stops the server (and whatever run.sh started) and removes the clone.
# Usage: Scripts/testing/time-to-health.sh [COMMIT] [PORT, default 8700]
set -euo pipefail
repository="$(cd "$(dirname "$0")/../.." && pwd)"
commit="${1:-HEAD}"
port="${2:-8700}"
work="$(mktemp -d)"
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill -TERM -- "-$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
git clone --quiet "$repository" "$work/clone"
git -C "$work/clone" checkout --quiet "$(git -C "$repository" rev-parse "$commit")"
start=$(date +%s)
(cd "$work/clone" && exec setsid Scripts/run.sh --port "$port" >"$work/run.log" 2>&1) &
pid=$!
until curl -fsS "http://127.0.0.1:$port/health" >/dev/null 2>&1; do
    if ! kill -0 "$pid" 2>/dev/null; then
        echo "Scripts/run.sh ended before /health answered:" >&2
        tail -20 "$work/run.log" >&2
        exit 1
    fi
    sleep 1
done
echo "$(git -C "$repository" rev-parse --short "$commit"): /health answered $(( $(date +%s) - start )) s after the clone"
