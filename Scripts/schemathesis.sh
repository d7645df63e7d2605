#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Fuzzes every operation of the server's API from its own OpenAPI description (GET /openapi.yaml) with schemathesis:
# generated and boundary inputs, stateful sequences where links exist, authenticated as a freshly registered client.
# Fails on any 5xx, any answer the description does not allow (status, content type, schema), or a server that
# stops. Runs on SQLite, and on PostgreSQL too when STRONGROOM_TEST_POSTGRES_URL names a cluster (as in
# Scripts/test.sh).
#
# Usage: Scripts/schemathesis.sh [EXAMPLES_PER_OPERATION] [SEED]   (CI: 20 and a fixed seed; a longer run: 500 0)
# SEED 0 picks a random seed (printed by schemathesis, to reproduce a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

examples="${1:-20}"
seed="${2:-20261127}"
python="$(Scripts/python-env.sh)"  # PyNaCl, to register the client
# schemathesis in a virtual environment of its own (pinned; its dependencies stay apart from the SDK's).
venv=".build/schemathesis-venv"
fuzzer="$venv/bin/schemathesis"
if ! [ -x "$fuzzer" ] || ! "$fuzzer" --version 2>/dev/null | grep -q "4.32.5"; then
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install -q --disable-pip-version-check "schemathesis==4.32.5" >&2
fi
server="${STRONGROOM_SERVER_BINARY:-.build/debug/strongroom-server}"
[ -x "$server" ] || { echo "error: $server is not built (swift build)" >&2; exit 1; }

work="$(mktemp -d /tmp/strongroom-schemathesis.XXXXXX)"
pid=""
cleanup() {
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT

run_engine() {
    local engine="$1"; shift
    local data="$work/$engine"
    local port_file="$work/$engine.port"
    "$server" serve --port 0 --port-file "$port_file" --data-directory "$data" --registration-token fuzz-token \
        --authentication-failures-per-minute 1000000 --maximum-sync-wait 0 --log-level error "$@" >"$work/$engine.log" 2>&1 &
    pid=$!
    for _ in $(seq 1 300); do [ -s "$port_file" ] && break; sleep 0.1; done
    local base="http://127.0.0.1:$(cat "$port_file")"
    for _ in $(seq 1 100); do curl -sf "$base/health" >/dev/null && break; sleep 0.1; done
    local token
    token="$("$python" Scripts/testing/register_client.py "$base" fuzz-token)"
    local seeding=()
    [ "$seed" != "0" ] && seeding=(--seed "$seed")
    echo "schemathesis: $engine, $examples examples per operation"
    "$fuzzer" run "$base/openapi.yaml" --url "$base" -H "Authorization: Bearer $token" \
        --max-examples "$examples" "${seeding[@]}" --no-color \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance
    kill -0 "$pid" 2>/dev/null || { echo "error: the server stopped during the run ($engine)" >&2; exit 1; }
    curl -sf "$base/health" >/dev/null || { echo "error: the server no longer answers /health ($engine)" >&2; exit 1; }
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=""
}

run_engine sqlite
if [ -n "${STRONGROOM_TEST_POSTGRES_URL:-}" ]; then
    database="schemathesis_$$"
    psql "$STRONGROOM_TEST_POSTGRES_URL" -qc "CREATE DATABASE $database" >/dev/null
    run_engine postgres --database-url "${STRONGROOM_TEST_POSTGRES_URL/\/postgres\?/\/$database?}" --single-instance
fi
