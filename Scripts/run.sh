#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The main job (README quick start): installs what building and serving need, builds the release products
# (`strongroom-server` and the `strongroom` CLI, in one build) and serves the E3DB API on 127.0.0.1:8000 with the
# embedded default (SQLite and the token key in ./strongroom-data).
#
# One `swift build -c release` of the whole package, never one product at a time: SwiftPM builds a single product
# (`--product`) with a plan of its own, and two products built one after the other on one `.build` rebuilt each
# other's shared modules (NIO, Crypto, SwiftASN1, ArgumentParser, StrongroomCore) every time — minutes before a
# built checkout served, and the CLI replaced under a user using it. With one plan, a built checkout rebuilds
# nothing and serves within seconds.
# Extra arguments go to `strongroom-server serve` (e.g. --port 9000 --data-directory /var/lib/strongroom).
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh --serve >&2
if [[ ! -x .build/release/strongroom-server || ! -x .build/release/strongroom ]]; then
    echo "building strongroom-server and the strongroom CLI (release) for the first time: about 20 to 30 minutes" \
        "on two cores" >&2
fi
started=$SECONDS
swift build -c release >&2
echo "built in $((SECONDS - started)) s: .build/release/strongroom-server and .build/release/strongroom" >&2
# The server in this script's place: Ctrl-C and SIGTERM reach it directly, and it stops gracefully.
exec .build/release/strongroom-server serve "$@"
