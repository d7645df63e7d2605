#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The one test command (README quick start; .ci/run calls it). On a fresh Debian machine with only the Swift
# toolchain it installs what it needs, builds once, and runs every suite against that one build.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh --object-store
STRONGROOM_PYTHON="$(Scripts/python-env.sh)"
export STRONGROOM_PYTHON="$PWD/${STRONGROOM_PYTHON#./}"

swift format lint --strict --recursive Package.swift Sources Tests Fuzz Benchmarks/Package.swift Benchmarks/Sources Benchmarks/KeyLogSpeed
# Every import must be a declared dependency (an incremental build would hide a missing one).
swift build --build-tests --explicit-target-dependency-import-check error
# DocC for every library, warnings as errors (broken symbol links, ambiguous references, undocumented parameters),
# built as the static site the project publishes (a landing page linking every library).
rm -rf .build/docs-site
Scripts/docs/build-docs.sh --site .build/docs-site

# Every server test runs on SQLite and on PostgreSQL (a throw-away cluster, stopped on exit); the S3 blob store's
# tests run against Ceph's RADOS Gateway (a throw-away one-node cluster, likewise).
trap 'Scripts/postgres.sh stop; Scripts/radosgw.sh stop' EXIT
STRONGROOM_TEST_POSTGRES_URL="$(Scripts/postgres.sh start)"
export STRONGROOM_TEST_POSTGRES_URL
STRONGROOM_TEST_S3_URL="$(Scripts/radosgw.sh start)"
export STRONGROOM_TEST_S3_URL
# The whole API fuzzed from its OpenAPI description on both engines: no 5xx, no answer the description does not
# allow (bounded: 20 examples per operation and a fixed seed; `Scripts/schemathesis.sh 500 0` is the long run).
Scripts/schemathesis.sh 20
# The keychain's Secret Service tests need a session bus and a real gnome-keyring: the whole run happens inside
# one private session (its keyring lives in a throw-away folder). Each pass runs under a watchdog: one that hangs
# (5 to 10 minutes is usual) prints the tests in flight and every thread's stack, and fails, well within CI's time.
Scripts/testing/watchdog.sh 40 Scripts/with-keyring.sh swift test --skip-build
# The file, datastore, keychain and shield suites once more with every Swift concurrency job on ONE thread
# (Tests/CStrictPool): a blocking call on the cooperative pool stalls this pass instead of hiding behind a second
# thread. StrictPoolTests checks the pool really is one thread.
STRONGROOM_STRICT_POOL=1 Scripts/testing/watchdog.sh 30 Scripts/with-keyring.sh swift test --skip-build \
    --filter 'StrictPoolTests|StrongroomDatastoreTests|StrongroomKeychainTests|StrongroomShieldTests|ClientFile'
# The Debian package, from the debug build above (a release build of everything would double this run's time;
# `Scripts/package-deb.sh` alone makes the release package): built, checked by lintian, installed into a scratch
# root, and its server and CLI run from there.
rm -rf .build/deb
Scripts/testing/check-deb.sh "$(Scripts/package-deb.sh --configuration debug --output .build/deb | tail -1)"
# libFuzzer on every parser (Fuzz/StrongroomFuzz), last because it recompiles this package's modules with
# -sanitize=fuzzer,address: 50,000 inputs per target from seed 1, so the run is the same on a busy machine
# (`Scripts/fuzz.sh TARGET SECONDS` is the long, time-bound run).
STRONGROOM_FUZZ_RUNS=50000 Scripts/fuzz.sh all 600
