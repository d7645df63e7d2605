#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Mutual-TLS benchmark (not a test): one release server's data served by two instances — plain HTTP, and HTTPS with
# the server's CA asking for client certificates — then enrollments per second (p50/p99) and the same record read
# over plain HTTP, server-only TLS and mutual TLS, side by side.
# Usage: Scripts/bench-mtls.sh [operations, default 500]
set -euo pipefail
cd "$(dirname "$0")/.."
count="${1:-500}"

source Scripts/bench/harness.sh
bench_build
bench_product StrongroomMutualTLSBenchmark
work="$bench_work"

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
bench_serve plain --data-directory "$data"
plain_port="$bench_port"
bench_start tls --data-directory "$data" \
    --tls-certificate-chain "$work/server.pem" --tls-private-key "$work/server.key" \
    --tls-client-ca "$data/ca/ca-chain.pem" --certificates-per-client-per-day 1000000
tls_port="$bench_port"
bench_wait "https://localhost:$tls_port/health" --cacert "$work/server-ca.pem"

Benchmarks/.build/release/StrongroomMutualTLSBenchmark "http://127.0.0.1:$plain_port" "https://localhost:$tls_port" \
    bench-token "$work/server-ca.pem" "$count"
