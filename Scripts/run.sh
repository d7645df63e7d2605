#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# The main job (README quick start): installs what is missing, builds `strongroom-server` (release) and serves the
# E3DB API on 127.0.0.1:8000 with the embedded default (SQLite and the token key in ./strongroom-data). The
# `strongroom` CLI for the README's sessions builds after the server, in the background, while the server already
# answers; an existing build is reused.
# Extra arguments go to `strongroom-server serve` (e.g. --port 9000 --data-directory /var/lib/strongroom).
set -euo pipefail
cd "$(dirname "$0")/.."

Scripts/install-system-deps.sh >&2
if [[ ! -x .build/release/strongroom-server ]]; then
    echo "building strongroom-server (release) for the first time: about 15 to 25 minutes on two cores" >&2
fi
started=$SECONDS
swift build -c release --product strongroom-server >&2
echo "strongroom-server built in $((SECONDS - started)) s" >&2

# The CLI builds while the server runs; Ctrl-C or SIGTERM stops both.
mkdir -p .build
swift build -c release --product strongroom >.build/cli-build.log 2>&1 &
cli=$!
(while kill -0 "$cli" 2>/dev/null; do sleep 1; done
    if grep -q "Build of product 'strongroom' complete" .build/cli-build.log; then
        echo "the CLI is ready: .build/release/strongroom" >&2
    else
        echo "the CLI did not build: see .build/cli-build.log" >&2
    fi) &
announcer=$!
.build/release/strongroom-server serve "$@" &
server=$!
stop() { kill -TERM "$server" "$cli" "$announcer" 2>/dev/null || true; }
trap stop INT TERM
status=0
wait "$server" || status=$?
# The server has stopped (a signal, or it could not start): stop the CLI's build too, and let both finish.
trap - INT TERM
stop
wait "$server" "$cli" "$announcer" 2>/dev/null || true
exit "$status"
