#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Mutual-TLS benchmark (not a test): one release server's data served by two instances — plain HTTP, and HTTPS with
# the server's CA asking for client certificates — then enrollments per second (p50/p99) and the same record read
# over plain HTTP, server-only TLS and mutual TLS, side by side.
# Usage: Scripts/bench-mtls.sh [operations, default 500]
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-500}"

Scripts/install-system-deps.sh >&2
swift build -c release >&2  # the whole package: one plan, as Scripts/run.sh builds it
(cd Benchmarks && swift build -c release --product StrongroomMutualTLSBenchmark >&2)
work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; rm -rf "$work"; }
trap cleanup EXIT

# A throw-away server CA and a certificate for localhost/127.0.0.1.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/server-ca.key" \
    -out "$work/server-ca.pem" -subj /CN=bench-server-ca -days 2 2>/dev/null
openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$work/server.key" \
    -out "$work/server.csr" -subj /CN=localhost 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n' >"$work/server.ext"
openssl x509 -req -in "$work/server.csr" -CA "$work/server-ca.pem" -CAkey "$work/server-ca.key" -CAcreateserial \
    -days 2 -extfile "$work/server.ext" -out "$work/server.pem" 2>/dev/null

data="$work/data"
.build/release/strongroom-server ca init --data-directory "$data" >/dev/null
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
plain_port="$(free_port)"
tls_port="$(free_port)"
.build/release/strongroom-server serve --port "$plain_port" --log-level error --registration-token bench-token \
    --data-directory "$data" >"$work/plain.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$plain_port/health" >/dev/null && break; sleep 0.1; done
.build/release/strongroom-server serve --port "$tls_port" --log-level error --data-directory "$data" \
    --tls-certificate-chain "$work/server.pem" --tls-private-key "$work/server.key" \
    --tls-client-ca "$data/ca/ca-chain.pem" --certificates-per-client-per-day 1000000 >"$work/tls.log" 2>&1 &
pids+=($!)
for _ in $(seq 1 100); do
    curl -sf --cacert "$work/server-ca.pem" "https://localhost:$tls_port/health" >/dev/null && break
    sleep 0.1
done

Benchmarks/.build/release/StrongroomMutualTLSBenchmark "http://127.0.0.1:$plain_port" "https://localhost:$tls_port" \
    bench-token "$work/server-ca.pem" "$count"
