#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Scale-out benchmark (not a test): file upload/download MB/s through the PostgreSQL blob store and the S3 blob store
# (Ceph's RADOS Gateway, Scripts/radosgw.sh) beside the local folder store, and authenticated record reads through two instances beside one, on one PostgreSQL, same run.
# Release build; curl and wrk from Debian. Everything shares this machine's cores, so the figures are a floor.
# Usage: Scripts/bench-scaleout.sh [file MiB, default 256] [seconds per load run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."

source Scripts/bench/harness.sh
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
bench_build --object-store
export STRONGROOM_RGW_STATE=.build/radosgw-bench.dir
bench_on_exit "Scripts/postgres.sh stop"
bench_on_exit "Scripts/radosgw.sh stop"
pg_admin="$(Scripts/postgres.sh start)"
s3_url="$(Scripts/radosgw.sh start)"
echo "strongroom-server scale-out benchmark: loopback, $(nproc) cores"
python3 Scripts/bench/scaleout.py "$bench_bin"/strongroom-server "$pg_admin" "${1:-256}" "${2:-10}" "$s3_url"
