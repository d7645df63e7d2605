#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The main job (README quick start): installs what is missing, builds `strongroom-server` and the `strongroom` CLI
# (release) and serves the E3DB API on 127.0.0.1:8000 with the embedded default (SQLite and the token key in
# ./strongroom-data).
# Extra arguments go to `strongroom-server serve` (e.g. --port 9000 --data-directory /var/lib/strongroom).
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh >&2
swift build -c release --product strongroom-server >&2
swift build -c release --product strongroom >&2   # the CLI, for the README's first session
exec .build/release/strongroom-server serve "$@"
