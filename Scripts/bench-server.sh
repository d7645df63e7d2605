#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Load benchmark (not a test): authenticated record writes and reads per second and p99 latency on loopback,
# printed beside the same server's /health rate measured in the same run, for SQLite and for PostgreSQL.
# Release build; wrk from Debian. Server and wrk share this machine's cores, so the figures are a floor. Each line also
# gives the CPU µs the server, PostgreSQL's processes and wrk spent per request, and the most a request may cost, all of
# them together, for the target rate on these cores (cores × 10⁶ / rate): where a target is beyond the machine shows.
# Usage: Scripts/bench-server.sh [seconds per run, default 10]
# STRONGROOM_BENCH_BIN=DIR runs the strongroom-server and strongroom found in DIR instead of building this checkout:
# copy two builds' binaries aside and alternate runs of each, since this VM's speed swings between runs.
set -euo pipefail
cd "$(dirname "$0")/.."
duration="${1:-10}"

source Scripts/bench/harness.sh
command -v wrk >/dev/null || { apt-get install -y -qq wrk >&2 || sudo apt-get install -y -qq wrk >&2; }
bench_build
bin="$bench_bin"
work="$bench_work"
bench_on_exit "Scripts/postgres.sh stop"

# The fields of /proc/$1/stat after the command name (which may hold spaces): $1 state, $2 parent, $12 utime, $13 stime.
stat_fields() { sed 's/.*) //' "/proc/$1/stat" 2>/dev/null; }

# CPU time (clock ticks, user + system) used so far by the processes $@ (gone ones count as 0).
cpu_ticks() {
    local total=0 pid used
    for pid in "$@"; do
        used="$(stat_fields "$pid" | awk '{print $12 + $13}')" || used=0
        total=$((total + ${used:-0}))
    done
    echo "$total"
}

# The PostgreSQL cluster's processes (the postmaster and its backends), when one is running.
database_pids() {
    local dir port postmaster stat
    [ -f .build/postgres.dir ] || return 0
    read -r dir port < .build/postgres.dir
    postmaster="$(head -n 1 "$dir/data/postmaster.pid" 2>/dev/null)" || return 0
    echo "$postmaster"
    for stat in /proc/[0-9]*/stat; do
        stat="${stat%/stat}"
        [ "$(stat_fields "${stat#/proc/}" | awk '{print $2}')" = "$postmaster" ] && echo "${stat#/proc/}"
    done
    return 0
}

# Runs wrk against the server $server_pid and prints "<requests/s> <p99 ms> <server> <database> <wrk>": the last three
# the CPU µs the server, the database cluster and wrk itself spent per answered request, sampled over the middle of
# the run.
measure() {
    local out="$work/wrk.out"
    wrk -t2 -c32 -d"${duration}s" --latency "$@" >"$out" 2>&1 &
    local wrk_pid=$!
    sleep 1
    local window=$((duration > 3 ? duration - 2 : 1))
    local pg_pids; pg_pids="$(database_pids)"
    local server_before database_before wrk_before started
    server_before="$(cpu_ticks "$server_pid")"; database_before="$(cpu_ticks $pg_pids)"
    wrk_before="$(cpu_ticks "$wrk_pid")"; started="$(date +%s%N)"
    sleep "$window"
    local server_used database_used wrk_used elapsed
    server_used=$(($(cpu_ticks "$server_pid") - server_before)); database_used=$(($(cpu_ticks $pg_pids) - database_before))
    wrk_used=$(($(cpu_ticks "$wrk_pid") - wrk_before))
    elapsed=$(($(date +%s%N) - started))
    wait "$wrk_pid"
    local rate p99
    rate="$(awk '/Requests\/sec/ {print $2}' "$out")"
    p99="$(awk '$1 == "99%" {print $2}' "$out")"
    python3 -c "
import sys
rate, elapsed, hz = float('$rate'), $elapsed / 1e9, $(getconf CLK_TCK)
per = lambda ticks: 1e6 * ticks / hz / (rate * elapsed)
print('$rate', '$p99', f'{per($server_used):.0f}', f'{per($database_used):.0f}', f'{per($wrk_used):.0f}')"
}

bench_engine() {
    local engine="$1"; shift
    bench_serve "$engine" "$@"
    server_pid="$bench_pid"
    local port="$bench_port"
    local base="http://127.0.0.1:$port"
    local public_key
    public_key="$("$bin"/strongroom keys client | python3 -c 'import json,sys; print(json.load(sys.stdin)["public_key"])')"
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

    read -r health_rate health_p99 health_cpu health_db health_wrk <<<"$(measure "$base/health")"
    read -r write_rate write_p99 write_cpu write_db write_wrk <<<"$(measure -s "$work/post.lua" "$base/v1/storage/records")"
    read -r read_rate read_p99 read_cpu read_db read_wrk <<<"$(measure -s "$work/get.lua" "$base/v1/storage/records/$record")"
    python3 - "$engine" "$(nproc)" "${targets[$engine.post]%\%}" "${targets[$engine.get]%\%}" \
        "$health_rate" "$health_p99" "$health_cpu" "$health_db" "$health_wrk" \
        "$write_rate" "$write_p99" "$write_cpu" "$write_db" "$write_wrk" \
        "$read_rate" "$read_p99" "$read_cpu" "$read_db" "$read_wrk" <<'PY'
import sys
engine, cores, post_target, get_target = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
runs = [sys.argv[i:i + 5] for i in (5, 10, 15)]
health = float(runs[0][0])
def line(name, run, target):
    rate, p99, server, database, wrk = run
    rate = float(rate)
    share = f"{'(anchor)':16}" if target is None else f"{100 * rate / health:5.1f}% of /health"
    cpu = f"server {server}" + (f" + database {database}" if engine == "postgres" else "") + f" + wrk {wrk} µs"
    # The CPU a request may cost, all processes together, for the target rate on these cores.
    budget = "" if target is None else f"; at the target ≤ {cores * 1e6 / (health * target / 100):.0f} µs"
    print(f"{engine:10} {name:22} {rate:10.0f} req/s  p99 {p99:>9}   {share}   CPU per request: {cpu}{budget}")
line("GET /health", runs[0], None)
line("POST record (5x1 KiB)", runs[1], post_target)
line("GET record", runs[2], get_target)
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
