#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Builds the DocC documentation of every library target with warnings as errors (broken symbol links, ambiguous
# references, missing landing pages fail CI). Output goes to .build/docs/<Target>; nothing is committed.
set -euo pipefail
cd "$(dirname "$0")/../.."

targets=(
    StrongroomCore StrongroomCrypto StrongroomWire StrongroomTransport StrongroomKeychain StrongroomSecretService
    StrongroomDatastore StrongroomPKI StrongroomShield
    StrongroomClient StrongroomClientShield StrongroomServer StrongroomServerPostgres StrongroomServerS3
    StrongroomTesting
)
arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done
swift package --disable-sandbox --allow-writing-to-directory .build/docs \
    generate-documentation "${arguments[@]}" --warnings-as-errors --output-path .build/docs
echo "documentation: ${#targets[@]} libraries built without warnings"
