#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Runs a command inside a private D-Bus session with a real gnome-keyring-daemon serving the Secret Service, its
# "login" keyring created and unlocked in a throw-away data directory (never the user's own keyrings).
# The command sees STRONGROOM_TEST_SECRET_SERVICE=1 and STRONGROOM_TEST_KEYRING_DIR (where the keyring file is).
# Usage: Scripts/with-keyring.sh <command> [arguments…]
set -euo pipefail
command -v dbus-run-session >/dev/null && command -v gnome-keyring-daemon >/dev/null || {
    echo "with-keyring: dbus-run-session and gnome-keyring-daemon are needed (Scripts/install-system-deps.sh)" >&2
    exit 1
}
runtime="$(mktemp -d)"
data="$(mktemp -d)"
chmod 700 "$runtime" "$data"
trap 'rm -rf "$runtime" "$data"' EXIT
unset DISPLAY WAYLAND_DISPLAY   # with a display the keyring would prompt in a window instead of failing fast
export XDG_RUNTIME_DIR="$runtime" XDG_DATA_HOME="$data"
export STRONGROOM_TEST_SECRET_SERVICE=1 STRONGROOM_TEST_KEYRING_DIR="$data/keyrings"
exec dbus-run-session -- sh -c '
    printf %s "strongroom-test-login" | gnome-keyring-daemon --unlock --components=secrets >/dev/null
    exec "$@"' sh "$@"
