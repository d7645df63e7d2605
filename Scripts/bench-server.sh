#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Load benchmark (not a test): authenticated record writes and reads per second and p99 latency on loopback,
# printed beside the same server's /health rate measured in the same run, for SQLite and for PostgreSQL.
# Release build; wrk from Debian. Server and wrk share this machine's cores, so the figures are a floor. Each line also
# gives the CPU time the server (and PostgreSQL's processes) spent per request: on c shared cores, a rate r needs
# (server + database + wrk) µs per request ≤ c × 10⁶ / r, which is where a target beyond the machine shows.
# Usage: Scripts/bench-server.sh [seconds per run, default 10]
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"

Scripts/install-system-deps.sh >&2
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
swift build -c release --product strongroom-server >&2
swift build -c release --product strongroom >&2
server=.build/release/strongroom-server
work="$(mktemp -d)"
pids=()
cleanup() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; Scripts/postgres.sh stop; rm -rf "$work"; }
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# CPU time (clock ticks, user + system) used so far by the processes $@ (gone ones count as 0).
cpu_ticks() {
    local total=0 pid
    for pid in "$@"; do
        [ -r "/proc/$pid/stat" ] && total=$((total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0)))
    done
    echo "$total"
}

# The PostgreSQL cluster's processes (the postmaster and its backends), when one is running.
database_pids() {
    local dir port
    [ -f .build/postgres.dir ] || return 0
    read -r dir port < .build/postgres.dir
    local postmaster; postmaster="$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)" || return 0
    echo "$postmaster" $(pgrep -P "$postmaster")
}

# Runs wrk against the server $server_pid and prints "<requests/s> <p99 ms> <server µs/request> <database µs/request>":
# the CPU time the server and the database cluster spent per answered request, sampled over the middle of the run.
measure() {
    local out="$work/wrk.out"
    wrk -t2 -c32 -d"${duration}s" --latency "$@" >"$out" 2>&1 &
    local wrk_pid=$!
    sleep 1
    local window=$((duration > 3 ? duration - 2 : 1))
    local pg_pids; pg_pids="$(database_pids)"
    local server_before database_before started
    server_before="$(cpu_ticks "$server_pid")"; database_before="$(cpu_ticks $pg_pids)"; started="$(date +%s%N)"
    sleep "$window"
    local server_used database_used elapsed
    server_used=$(($(cpu_ticks "$server_pid") - server_before)); database_used=$(($(cpu_ticks $pg_pids) - database_before))
    elapsed=$(($(date +%s%N) - started))
    wait "$wrk_pid"
    local rate p99
    rate="$(awk '/Requests\/sec/ {print $2}' "$out")"
    p99="$(awk '$1 == "99%" {print $2}' "$out")"
    python3 -c "
import sys
rate, server, database, elapsed, hz = float('$rate'), $server_used, $database_used, $elapsed / 1e9, $(getconf CLK_TCK)
per = lambda ticks: 1e6 * ticks / hz / (rate * elapsed)
print('$rate', '$p99', f'{per(server):.0f}', f'{per(database):.0f}')"
}

bench_engine() {
    local engine="$1"; shift
    local port; port="$(free_port)"
    "$server" serve --port "$port" --log-level error --registration-token bench-token \
        --data-directory "$work/$engine" "$@" >"$work/$engine.log" 2>&1 &
    server_pid=$!
    pids+=("$server_pid")
    for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
    local base="http://127.0.0.1:$port"
    local public_key
    public_key="$(.build/release/strongroom keys client | python3 -c 'import json,sys; print(json.load(sys.stdin)["public_key"])')"
    local registered
    registered="$(curl -sf -X POST "$base/v1/account/e3db/clients/register" \
        -d "{\"token\":\"bench-token\",\"client\":{\"name\":\"bench\",\"public_key\":{\"curve25519\":\"$public_key\"}}}")"
    local id key secret token
    id="$(echo "$registered" | python3 -c 'import json,sys; print(json.load(sys.stdin)["client_id"])')"
    key="$(echo "$registered" | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_key_id"])')"
    secret="$(echo "$registered" | python3 -c 'import json,sys; print(json.load(sys.stdin)["api_secret"])')"
    token="$(curl -sf -u "$key:$secret" -d grant_type=client_credentials "$base/v1/auth/token" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')"
    # A record of five 1 KiB fields, shaped like real EDK.EDKN.EF.EFN ciphertext (the server never looks inside).
    local body
    body="$(python3 - "$id" <<'PY'
import base64, json, os, sys
b = lambda n: base64.urlsafe_b64encode(os.urandom(n)).rstrip(b"=").decode()
field = lambda: ".".join([b(48), b(24), b(1024 + 16), b(24)])
print(json.dumps({"meta": {"writer_id": sys.argv[1], "user_id": sys.argv[1], "type": "bench", "plain": {"k": "v"}},
                  "data": {f"f{i}": field() for i in range(5)}}))
PY
)"
    local record
    record="$(curl -sf -H "Authorization: Bearer $token" -d "$body" "$base/v1/storage/records" \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["meta"]["record_id"])')"
    printf 'wrk.method = "POST"\nwrk.body = %s\nwrk.headers["Authorization"] = "Bearer %s"\nwrk.headers["Content-Type"] = "application/json"\n' \
        "$(python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))' <<<"$body")" "$token" >"$work/post.lua"
    printf 'wrk.headers["Authorization"] = "Bearer %s"\n' "$token" >"$work/get.lua"

    read -r health_rate health_p99 health_cpu health_db <<<"$(measure "$base/health")"
    read -r write_rate write_p99 write_cpu write_db <<<"$(measure -s "$work/post.lua" "$base/v1/storage/records")"
    read -r read_rate read_p99 read_cpu read_db <<<"$(measure -s "$work/get.lua" "$base/v1/storage/records/$record")"
    python3 - "$engine" "$health_rate" "$health_p99" "$health_cpu" "$write_rate" "$write_p99" "$write_cpu" "$write_db" \
        "$read_rate" "$read_p99" "$read_cpu" "$read_db" <<'PY'
import sys
engine, hr, hp, hc, wr, wp, wc, wd, rr, rp, rc, rd = sys.argv[1:]
hr, wr, rr = float(hr), float(wr), float(rr)
db = lambda us: f", database {us} µs" if engine == "postgres" else ""
print(f"{engine:10} GET /health            {hr:10.0f} req/s  p99 {hp:>9}   (anchor)   CPU per request: server {hc} µs")
print(f"{engine:10} POST record (5x1 KiB)  {wr:10.0f} req/s  p99 {wp:>9}   {100 * wr / hr:5.1f}% of /health"
      f"   CPU per request: server {wc} µs{db(wd)}")
print(f"{engine:10} GET record             {rr:10.0f} req/s  p99 {rp:>9}   {100 * rr / hr:5.1f}% of /health"
      f"   CPU per request: server {rc} µs{db(rd)}")
PY
    summary+=("$engine GET $(python3 -c "print(f'{100 * $read_rate / $health_rate:.0f}%')") (target ${targets[$engine.get]}), POST $(python3 -c "print(f'{100 * $write_rate / $health_rate:.0f}%')") (target ${targets[$engine.post]})")
}
declare -A targets=([sqlite.get]="50%" [sqlite.post]="25%" [postgres.get]="35%" [postgres.post]="20%")
summary=()

echo "strongroom-server load benchmark: wrk -t2 -c32 -d${duration}s, loopback, $(nproc) cores shared by server, database and wrk"
bench_engine sqlite
pg_admin="$(Scripts/postgres.sh start)"
psql "$pg_admin" -qc "CREATE DATABASE bench" >/dev/null
bench_engine postgres --database-url "${pg_admin/\/postgres\?/\/bench?}" --single-instance
echo
echo "summary, share of the same server's /health rate: $(IFS=';'; echo "${summary[*]}" | sed 's/;/; /g')"
