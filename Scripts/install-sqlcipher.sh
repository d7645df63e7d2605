#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# SQLCipher 4 (libsqlcipher-dev 4.6.1 and the `sqlcipher` shell) from Debian's bookworm-backports suite: bookworm's
# own 3.4.1 is SQLCipher 3 on SQLite 3.15. The suite is added by copying the machine's existing Debian source
# stanza (the one whose Suites line is `bookworm bookworm-updates`) with only the suite changed, so no mirror host
# is written here. Safe to run again. Needs root (or sudo).
set -euo pipefail

sudo=""
if [ "$(id -u)" -ne 0 ]; then sudo="sudo"; fi

version() { dpkg-query -W -f='${Version}' "$1" 2>/dev/null || true; }
if [[ "$(version libsqlcipher-dev)" == 4.* && "$(version sqlcipher)" == 4.* ]]; then
    echo "sqlcipher: 4.x present"
    exit 0
fi

target=/etc/apt/sources.list.d/strongroom-bookworm-backports.sources
if [ ! -f "$target" ]; then
    source_file=/etc/apt/sources.list.d/debian.sources
    [ -f "$source_file" ] || { echo "error: $source_file not found; add bookworm-backports by hand" >&2; exit 1; }
    # The stanza (paragraph) that lists bookworm and bookworm-updates, with its Suites line replaced.
    stanza=$(awk 'BEGIN { RS = ""; ORS = "\n\n" } /Suites: bookworm bookworm-updates/ { print }' "$source_file" \
        | sed 's/^Suites: .*/Suites: bookworm-backports/')
    [ -n "$stanza" ] || { echo "error: no 'Suites: bookworm bookworm-updates' stanza in $source_file" >&2; exit 1; }
    printf '%s\n' "$stanza" | $sudo tee "$target" >/dev/null
fi
export DEBIAN_FRONTEND=noninteractive
# Another install running: wait for its lock (ten minutes at most).
for attempt in $(seq 60); do
    $sudo apt-get -o DPkg::Lock::Timeout=600 update -qq && break
    [ "$attempt" -lt 60 ] || exit 1
    echo "apt-get update failed (another install may hold its lock); trying again in 10 s" >&2
    sleep 10
done
$sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends -t bookworm-backports \
    libsqlcipher-dev sqlcipher
[[ "$(version libsqlcipher-dev)" == 4.* ]] || { echo "error: libsqlcipher-dev 4.x did not install" >&2; exit 1; }
echo "sqlcipher: installed $(version libsqlcipher-dev)"
