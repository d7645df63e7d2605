#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Scale-out benchmark (not a test): file upload/download MB/s through the PostgreSQL blob store and the S3 blob store
# (Ceph's RADOS Gateway, Scripts/radosgw.sh) beside the local folder store, and authenticated record reads through two instances beside one, on one PostgreSQL, same run.
# Release build; curl and wrk from Debian. Everything shares this machine's cores, so the figures are a floor.
# Usage: Scripts/bench-scaleout.sh [file MiB, default 256] [seconds per load run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh --object-store >&2
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
export STRONGROOM_RGW_STATE=.build/radosgw-bench.dir
trap 'Scripts/postgres.sh stop; Scripts/radosgw.sh stop' EXIT
pg_admin="$(Scripts/postgres.sh start)"
s3_url="$(Scripts/radosgw.sh start)"
echo "strongroom-server scale-out benchmark: loopback, $(nproc) cores"
python3 Scripts/bench/scaleout.py .build/release/strongroom-server "$pg_admin" "${1:-256}" "${2:-10}" "$s3_url"
