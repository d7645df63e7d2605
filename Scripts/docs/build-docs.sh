#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Builds the DocC documentation of every library target with warnings as errors (broken symbol links, ambiguous
# references, missing landing pages fail CI). Output goes to .build/docs/<Target>; nothing is committed.
#
# --site DIR [--base-path PATH]: instead, one static documentation site of every library in DIR (a landing page
# linking each, DocC's transform for static hosting), publishable as it is from the web root, or from PATH below it
# (e.g. --base-path strongroom for https://example.github.io/strongroom/).
set -euo pipefail
cd "$(dirname "$0")/../.."

site=""
base_path=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --site) site="${2:?--site needs a folder}"; shift 2 ;;
        --base-path) base_path="${2:?--base-path needs a path}"; shift 2 ;;
        *) echo "usage: $0 [--site DIR [--base-path PATH]]" >&2; exit 64 ;;
    esac
done

targets=(
    StrongroomCore StrongroomCrypto StrongroomWire StrongroomTransport StrongroomKeychain StrongroomSecretService
    StrongroomDatastore StrongroomSync StrongroomPKI StrongroomShield
    StrongroomClient StrongroomClientShield StrongroomServer StrongroomServerPostgres StrongroomServerS3 StrongroomBackend
    StrongroomBackendPostgres
    StrongroomTesting
)
arguments=()
for target in "${targets[@]}"; do arguments+=(--target "$target"); done
if [[ -n "$site" ]]; then
    [[ -e "$site" ]] && { echo "$site exists: give a new folder" >&2; exit 1; }
    mkdir -p "$(dirname "$site")"
    site="$(cd "$(dirname "$site")" && pwd)/$(basename "$site")"
    hosting=(--transform-for-static-hosting)
    [[ -n "$base_path" ]] && hosting+=(--hosting-base-path "$base_path")
    swift package --disable-sandbox --allow-writing-to-directory "$site" \
        generate-documentation "${arguments[@]}" --enable-experimental-combined-documentation "${hosting[@]}" \
        --warnings-as-errors --output-path "$site"
    # The landing page (data/documentation.json) must link every library; the site's root sends visitors to it.
    python3 - "$site" "${targets[@]}" <<'CHECK'
import json, sys
site, targets = sys.argv[1], sys.argv[2:]
landing = json.load(open(f"{site}/data/documentation.json"))
linked = {i.rsplit("/", 1)[-1] for s in landing.get("topicSections", []) for i in s["identifiers"]}
missing = sorted(set(targets) - linked)
if missing:
    sys.exit(f"the landing page does not link {missing}")
CHECK
    cat > "$site/index.html" <<'HTML'
<!doctype html>
<meta charset="utf-8">
<title>Strongroom documentation</title>
<meta http-equiv="refresh" content="0; url=documentation/">
<a href="documentation/">Strongroom documentation</a>
HTML
    echo "documentation site: $site (${#targets[@]} libraries linked from documentation/; serve the folder as it is)"
    exit 0
fi
swift package --disable-sandbox --allow-writing-to-directory .build/docs \
    generate-documentation "${arguments[@]}" --warnings-as-errors --output-path .build/docs
echo "documentation: ${#targets[@]} libraries built without warnings"
