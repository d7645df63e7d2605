#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The main job (README quick start): installs what is missing, builds, and runs `strongroom` with the given
# arguments, or the self-contained demo when none are given.
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh >&2
swift build -c release --product strongroom >&2
if [ $# -eq 0 ]; then
    set -- demo
fi
exec .build/release/strongroom "$@"
