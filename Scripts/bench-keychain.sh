#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Keychain benchmark (not a test), release build: unlock time per Argon2id preset beside Argon2id alone, and item
# store/retrieve rates for the encrypted file, the Secret Service (a real gnome-keyring in a private session) and
# memory, beside a raw XChaCha20-Poly1305 seal. Usage: Scripts/bench-keychain.sh [items, default 200]
set -euo pipefail
cd "$(dirname "$0")/.."
Scripts/install-system-deps.sh >&2
(cd Benchmarks && swift build -c release --product StrongroomKeychainBenchmark >&2)
exec Scripts/with-keyring.sh Benchmarks/.build/release/StrongroomKeychainBenchmark "${1:-200}"
