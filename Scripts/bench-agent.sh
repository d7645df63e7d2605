#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Agent benchmark (not a test), release build: commands per second that open the keychain (default Argon2id cost,
# "moderate") without `strongroom agent` (the anchor) and with it, for `keychain get` and for `store get` with a
# password-wrapped datastore key (two derivations without the agent) and with --keychain-key (one, none with it).
# Usage: Scripts/bench-agent.sh [runs per figure, default 10]
# STRONGROOM_BENCH_SCRATCH: the build folder (default .build), so it can run beside another build.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-10}"
scratch="${STRONGROOM_BENCH_SCRATCH:-.build}"
Scripts/install-system-deps.sh >&2
swift build -c release --product strongroom --scratch-path "$scratch" >&2
cli="$(cd "$scratch/release" && pwd)/strongroom"
work="$(mktemp -d)"
export HOME="$work" STRONGROOM_HOME="$work/.strongroom"
unset STRONGROOM_AGENT_SOCKET
trap '"$cli" agent stop >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
cd "$work"
printf 'bench passphrase\n' > pass
printf 'bench password\n' > password
keychain=(--passphrase-file pass)
"$cli" keychain create "${keychain[@]}" >/dev/null
printf 'value' | "$cli" keychain store --account bench "${keychain[@]}" >/dev/null
mkdir stores
wrapped=(--directory stores --name wrapped --password-file password)
kept=(--directory stores --name kept --keychain-key)
"$cli" store create "${wrapped[@]}" "${keychain[@]}" >/dev/null
"$cli" store create "${kept[@]}" "${keychain[@]}" >/dev/null
echo '{"x": 1}' | "$cli" store put --id d "${wrapped[@]}" "${keychain[@]}" >/dev/null
echo '{"x": 1}' | "$cli" store put --id d "${kept[@]}" "${keychain[@]}" >/dev/null

# Commands per second of `runs` runs of the command in "$@".
rate() {
    local start end
    start=$(date +%s.%N)
    for _ in $(seq "$runs"); do "$@" >/dev/null; done
    end=$(date +%s.%N)
    awk -v n="$runs" -v a="$start" -v b="$end" 'BEGIN { printf "%.4f", n / (b - a) }'
}

get_without=$(rate "$cli" keychain get --account bench "${keychain[@]}")
wrapped_without=$(rate "$cli" store get --id d "${wrapped[@]}" "${keychain[@]}")
kept_without=$(rate "$cli" store get --id d "${kept[@]}" "${keychain[@]}")
"$cli" agent start "${keychain[@]}" >/dev/null
get_with=$(rate "$cli" keychain get --account bench)
wrapped_with=$(rate "$cli" store get --id d "${wrapped[@]}")
kept_with=$(rate "$cli" store get --id d "${kept[@]}")
"$cli" agent stop >/dev/null

echo "strongroom agent, release build, $runs runs each, $(nproc) cores; commands per second"
printf '%-46s %12s %12s %8s\n' "command (derivations without / with agent)" "no agent" "agent" "ratio"
row() { printf '%-46s %12.2f %12.2f %7.1fx\n' "$1" "$2" "$3" "$(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.4f", b / a }')"; }
row "keychain get (1 / 0)" "$get_without" "$get_with"
row "store get --password-file (2 / 1)" "$wrapped_without" "$wrapped_with"
row "store get --keychain-key (1 / 0)" "$kept_without" "$kept_with"
