#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Creates .build/python-venv with the reference implementations the tests compare against:
# the official Tozny Python SDK (e3db 2.3.0, PyPI), PyNaCl, pytest to run the SDK's own suites, and keyring with
# secretstorage (another Secret Service client, for the keychain's interoperability test). Prints the interpreter's path.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=".build/python-venv"
python="$venv/bin/python"
if [ -x "$python" ] && "$python" -c 'import e3db, nacl, pytest, responses, keyring, secretstorage; assert e3db.__file__' >/dev/null 2>&1; then
    echo "$python"
    exit 0
fi

rm -rf "$venv"
mkdir -p .build
python3 -m venv "$venv" >&2
for attempt in 1 2; do
    if "$venv/bin/pip" install -q --disable-pip-version-check "e3db==2.3.0" "PyNaCl==1.6.2" "pytest>=8,<10" "responses" \
        "keyring==25.7.0" "secretstorage==3.5.0" >&2; then
        break
    fi
    [ "$attempt" -eq 2 ] && { echo "error: pip could not install e3db==2.3.0 and PyNaCl==1.6.2" >&2; exit 1; }
    echo "pip install failed; retrying once" >&2
    sleep 3
done
echo "$python"
