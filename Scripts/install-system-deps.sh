#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Installs the Debian packages Strongroom needs to build and test. Safe to run again: it installs only what is
# missing, waits (up to ten minutes) while another install holds the package manager's lock, and retries once after
# a transient apt/dpkg failure. Needs root (or sudo).
#   --serve          only what building and serving needs (Scripts/run.sh): no test tooling, no database server
#   --object-store   also Ceph's RADOS Gateway, the S3-compatible object store the tests start (Scripts/radosgw.sh)
set -euo pipefail

# What building every product needs (the server, the CLI and their C libraries).
packages=(
    pkg-config        # finds libsodium for the CSodium system-library target
    libsodium-dev     # the E3DB sodium suite (box, secretbox, Ed25519, secretstream, Argon2id)
    libsecret-1-dev   # the keychain's Secret Service backend (CLibSecret)
    libre2-dev        # RE2: linear-time REGEXP/WILDCARD matching in the server's v2 search and the datastore's $regex (CRE2)
    ca-certificates
)
if [ "${1:-}" != "--serve" ]; then
    packages+=(
        python3           # test tooling: the official e3db Python SDK and PyNaCl (Scripts/python-env.sh)
        python3-venv
        python3-pip
        postgresql        # the second server engine; tests start a throw-away cluster (Scripts/postgres.sh)
        postgresql-client # psql and pg_dump for the tests
        gnome-keyring     # a real Secret Service provider for its tests (Scripts/with-keyring.sh)
        libsecret-tools   # secret-tool: another client of the Secret Service, for the interoperability test
        dbus              # dbus-run-session, the private session bus those tests run in
        openssl           # test tooling: checks CSRs, chains and PKCS#12 files the PKI module makes; fixture script
        curl              # test tooling: an independent mutual-TLS client (MutualTLSTests); benchmark scripts
        strace            # test tooling: the integrity check must see a real tracer (CLIIntegrityTests)
        util-linux        # setpriv: integrity tests run the CLI unprivileged when CI is root; setsid (Scripts/testing/watchdog.sh)
        procps            # pgrep and pkill: the test watchdog finds and stops a hung pass's processes
        gdb               # the test watchdog prints a hung pass's thread stacks
    )
fi
if [ "${1:-}" = "--object-store" ]; then
    packages+=(
        radosgw       # test tooling: a real S3-compatible server for the S3 blob store (Scripts/radosgw.sh)
        ceph-mon      # its one-node Ceph cluster: a monitor…
        ceph-osd      # …and an in-memory OSD
        ceph-common   # ceph, ceph-authtool, monmaptool, radosgw-admin
    )
fi

missing=()
for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ ${#missing[@]} -eq 0 ]; then
    echo "system packages: all present"
    exec "$(dirname "$0")/install-sqlcipher.sh"
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null || { echo "error: need root or sudo to install: ${missing[*]}" >&2; exit 1; }
    sudo="sudo"
fi

echo "system packages: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# Another install running (a second script started at once, unattended upgrades): wait for its lock.
apt_wait=(-o DPkg::Lock::Timeout=600)
for attempt in $(seq 60); do
    $sudo apt-get "${apt_wait[@]}" update -qq && break
    [ "$attempt" -lt 60 ] || exit 1
    echo "apt-get update failed (another install may hold its lock); trying again in 10 s" >&2
    sleep 10
done
if ! $sudo apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}"; then
    echo "apt-get install failed; repairing and retrying once" >&2
    $sudo apt-get "${apt_wait[@]}" install -f -y -qq || true
    sleep 2
    $sudo apt-get "${apt_wait[@]}" install -y -qq --no-install-recommends "${missing[@]}"
fi
"$(dirname "$0")/install-sqlcipher.sh"
