#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# libFuzzer on every parser that reads bytes from a peer or a file (Fuzz/StrongroomFuzz/FuzzTarget.swift lists them).
# Usage: Scripts/fuzz.sh TARGET|all SECONDS
#   Builds `strongroom-fuzz` (this package's modules instrumented with -sanitize=fuzzer,address, in the same .build,
#   so the next ordinary build recompiles them: about a minute each way), then runs each target for SECONDS from its
#   seed corpus (Fuzz/Corpus/TARGET, read-only) plus what earlier runs found (.build/fuzz/corpus/TARGET).
#   An input slower than 1 s (and again when run alone: wall time on a loaded machine is not the input's fault),
#   over 2 GiB, a crash, a sanitizer report or a leak fails the run; the input that did it is kept in
#   .build/fuzz/artifacts/.
# STRONGROOM_FUZZ_RUNS=N makes a run reproducible instead: seed 1, N inputs per target, SECONDS only a cap, and 10 s
#   per input before it counts as a hang (so a busy machine cannot fail it). CI runs
#   `STRONGROOM_FUZZ_RUNS=50000 Scripts/fuzz.sh all 300`.
# STRONGROOM_FUZZ_BINARY=path skips the build and runs that binary (a copy, so ordinary builds can go on beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
target="${1:?usage: Scripts/fuzz.sh TARGET|all SECONDS}"
seconds="${2:?usage: Scripts/fuzz.sh TARGET|all SECONDS}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number" >&2; exit 2; }

if [[ -n "${STRONGROOM_FUZZ_BINARY:-}" ]]; then
    binary="$STRONGROOM_FUZZ_BINARY"
else
    STRONGROOM_FUZZ=1 swift build --product strongroom-fuzz 2>&1 |
        grep -v -E "^warning: (prohibited flag|'swift-distributed-tracing')" | tail -2
    binary="$(STRONGROOM_FUZZ=1 swift build --product strongroom-fuzz --show-bin-path)/strongroom-fuzz"
fi
limits=(-max_total_time="$seconds" -timeout=1)
if [[ -n "${STRONGROOM_FUZZ_RUNS:-}" ]]; then
    [[ "$STRONGROOM_FUZZ_RUNS" =~ ^[0-9]+$ ]] || { echo "fuzz: STRONGROOM_FUZZ_RUNS must be a whole number" >&2; exit 2; }
    limits=(-max_total_time="$seconds" -runs="$STRONGROOM_FUZZ_RUNS" -seed=1 -timeout=10)
fi

if [[ "$target" == all ]]; then
    targets=(Fuzz/Corpus/*/)
    targets=("${targets[@]%/}")
    targets=("${targets[@]#Fuzz/Corpus/}")
else
    [[ -d "Fuzz/Corpus/$target" ]] || { echo "fuzz: no target '$target' (see Fuzz/Corpus)" >&2; exit 2; }
    targets=("$target")
fi

mkdir -p .build/fuzz/artifacts
failed=()
for name in "${targets[@]}"; do
    work=".build/fuzz/corpus/$name"
    mkdir -p "$work"
    log=".build/fuzz/$name.log"
    dictionary=()
    case "$name" in
        record-body | plain-json | search-v1 | search-v2 | keychain-file | selector | integrity-report)
            dictionary=(-dict=Fuzz/json.dict) ;;
    esac
    # -rss_limit_mb: memory per process; -max_len: bytes per input (the largest seed is 65,538).
    if STRONGROOM_FUZZ_TARGET="$name" ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1" \
        "$binary" "${limits[@]}" -rss_limit_mb=2048 -max_len=131072 -print_final_stats=1 \
        "${dictionary[@]}" -artifact_prefix=".build/fuzz/artifacts/$name-" "$work" "Fuzz/Corpus/$name" \
        >"$log" 2>&1; then
        runs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")"
        speed="$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")"
        coverage="$(grep -o 'cov: [0-9]*' "$log" | tail -1)"
        printf 'fuzz %-17s %9s runs  %6s/s  %s  0 crashes\n' "$name" "$runs" "$speed" "$coverage"
    elif artifact="$(sed -n 's/.*Test unit written to \(.*timeout-.*\)$/\1/p' "$log")" && [[ -n "$artifact" ]] &&
        STRONGROOM_FUZZ_TARGET="$name" "$binary" -timeout=1 -runs=3 "$artifact" >"$log.rerun" 2>&1; then
        # libFuzzer's timeout is wall time: on a loaded machine a fast input can miss it. Run alone three times
        # within the limit, it was the machine, not the input (said, and the target's run counts as stopped).
        echo "fuzz $name stopped on a timeout that was the machine's load: $artifact runs in time alone"
    else
        echo "fuzz $name FAILED — $log:" >&2
        grep -E "ERROR|SUMMARY|==[0-9]+==|Test unit written" "$log" | head -12 >&2 || tail -20 "$log" >&2
        failed+=("$name")
    fi
done
if ((${#failed[@]})); then
    echo "fuzz: ${#failed[@]} target(s) failed: ${failed[*]}" >&2
    exit 1
fi
