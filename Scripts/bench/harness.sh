# Strongroom — SPDX-License-Identifier: Apache-2.0
# The benchmark scripts' shared part, sourced (not run) from the repository root by Scripts/bench-*.sh:
#
#   source Scripts/bench/harness.sh
#   bench_build [--object-store]       system packages, then the whole package in release (one plan, as run.sh)
#   bench_product NAME                 a product of the Benchmarks package, in release
#   bench_serve NAME [OPTION...]       strongroom-server on a free port (data in $bench_work/NAME, log in
#                                      $bench_work/NAME.log, registration token bench-token), waited for until
#                                      /health answers; sets bench_port, bench_pid and bench_url
#   bench_start NAME [OPTION...]       the same without the wait (a TLS server: wait with bench_wait)
#   bench_stop PID                     stops one server started here
#   bench_wait URL [CURL-OPTION...]    until URL answers (30 s), else the script fails naming it
#   bench_on_exit COMMAND              also runs COMMAND on exit (e.g. stopping the test PostgreSQL cluster)
#   free_port                          a free loopback port
#
# On exit every server started here is stopped and $bench_work removed. STRONGROOM_BENCH_BIN names a folder of
# already built binaries (bench_build then builds nothing); $bench_bin is where the binaries are.
bench_work="$(mktemp -d)"
bench_bin="${STRONGROOM_BENCH_BIN:-.build/release}"
bench_pids=()
bench_exit_hooks=()

bench_cleanup() {
    local pid hook
    for pid in "${bench_pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    for hook in "${bench_exit_hooks[@]}"; do eval "$hook" >/dev/null 2>&1 || true; done
    rm -rf "$bench_work"
}
trap bench_cleanup EXIT

bench_on_exit() { bench_exit_hooks+=("$1"); }

bench_build() {
    Scripts/install-system-deps.sh "$@" >&2
    [[ -n "${STRONGROOM_BENCH_BIN:-}" ]] || swift build -c release >&2
}

bench_product() {
    (cd Benchmarks && swift build -c release --product "$1" --disable-build-manifest-caching >&2)
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

bench_wait() {
    local url="$1"; shift
    for _ in $(seq 1 300); do curl -sf "$@" "$url" >/dev/null && return 0; sleep 0.1; done
    echo "bench: $url did not answer within 30 s" >&2
    exit 1
}

bench_start() {
    local name="$1"; shift
    local data=(--data-directory "$bench_work/$name")
    [[ " $* " == *" --data-directory "* ]] && data=()
    bench_port="$(free_port)"
    "$bench_bin/strongroom-server" serve --port "$bench_port" --log-level error --registration-token bench-token \
        "${data[@]}" "$@" >"$bench_work/$name.log" 2>&1 &
    bench_pid=$!
    bench_pids+=("$bench_pid")
    bench_url="http://127.0.0.1:$bench_port"
}

bench_serve() {
    bench_start "$@"
    bench_wait "$bench_url/health"
}

bench_stop() { kill "$1" 2>/dev/null || true; wait "$1" 2>/dev/null || true; }
