#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# A throw-away S3-compatible object store for the tests: Ceph's RADOS Gateway from Debian's `radosgw` package, on a
# one-node Ceph cluster (one monitor, one in-memory OSD) on loopback.
#   Scripts/radosgw.sh start   → prints http://ACCESS_KEY:SECRET_KEY@127.0.0.1:PORT (region us-east-1; no bucket)
#   Scripts/radosgw.sh stop
#   Scripts/radosgw.sh halt | resume   → kills / restarts the gateway alone, keeping the cluster, its objects, its
#                                        unfinished uploads and its port (the object-store fault tests)
# State lives in a temporary directory recorded, with its ports and keys, in STRONGROOM_RGW_STATE (default
# .build/radosgw.dir). The OSD keeps objects in memory (at most 2 GiB), so stopping the cluster discards them.
set -euo pipefail
cd "$(dirname "$0")/.."

state="${STRONGROOM_RGW_STATE:-.build/radosgw.dir}"
command -v radosgw >/dev/null || { echo "error: radosgw is not installed; run Scripts/install-system-deps.sh --object-store" >&2; exit 1; }

free_port() {
    local port="$1"
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$((port + 1)); done
    echo "$port"
}

# Runs a daemon that outlives this script without the caller's descriptors beyond 0-2 (a parent that waits for
# those to close, as Foundation's Process does, would otherwise wait as long as the daemon runs).
daemon() {
    (
        for fd in /proc/$BASHPID/fd/*; do
            fd="${fd##*/}"
            [ "$fd" -gt 2 ] && eval "exec $fd>&-"
        done
        "$@" </dev/null >/dev/null 2>&1
    )
}

stop_cluster() {
    local dir="$1" pids=() pidfile pid
    for pidfile in "$dir"/run/*.pid; do
        [ -f "$pidfile" ] && pids+=("$(cat "$pidfile")")
    done
    for signal in KILL; do
        for pid in "${pids[@]}"; do kill -s "$signal" "$pid" 2>/dev/null || true; done
        for _ in $(seq 1 50); do
            alive=0
            for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive=1; done
            [ "$alive" -eq 0 ] && break
            sleep 0.1
        done
        [ "$alive" -eq 0 ] && break
    done
    rm -rf "$dir"
}

case "${1:-}" in
start)
    if [ -f "$state" ]; then
        read -r dir rgw_port access secret < "$state"
        if [ -d "$dir" ] && curl -s -o /dev/null "http://127.0.0.1:$rgw_port/"; then
            echo "http://$access:$secret@127.0.0.1:$rgw_port"
            exit 0
        fi
        [ -d "$dir" ] && stop_cluster "$dir"
    fi
    mon_port="$(free_port "${STRONGROOM_RGW_MON_PORT:-6789}")"
    rgw_port="$(free_port "${STRONGROOM_RGW_PORT:-7480}")"
    dir="$(mktemp -d /tmp/strongroom-rgw.XXXXXX)"
    mkdir -p "$dir"/{mon,osd,rgw,run,log}
    fsid="$(cat /proc/sys/kernel/random/uuid)"
    access="SR$(head -c 9 /dev/urandom | od -An -tx1 | tr -d ' \n' | tr a-f A-F)"
    secret="$(head -c 30 /dev/urandom | base64 | tr -d '/+=' | cut -c1-40)"
    cat > "$dir/ceph.conf" <<CONF
[global]
fsid = $fsid
mon host = 127.0.0.1:$mon_port
auth cluster required = cephx
auth service required = cephx
auth client required = cephx
auth allow insecure global id reclaim = false
osd pool default size = 1
osd pool default min size = 1
mon allow pool size one = true
mon warn on pool no redundancy = false
mon data avail warn = 1
mon data avail crit = 0
osd pool default pg num = 8
osd pool default pgp num = 8
mon max pg per osd = 1000
osd objectstore = memstore
memstore device bytes = 2147483648
osd crush chooseleaf type = 0
ms bind ipv6 = false
run dir = $dir/run
pid file = $dir/run/\$name.pid
log file = $dir/log/\$name.log
admin socket = $dir/run/\$name.asok
keyring = $dir/keyring
[mon.a]
mon data = $dir/mon
[osd.0]
osd data = $dir/osd
keyring = $dir/osd/keyring
[client.rgw.a]
rgw frontends = beast endpoint=127.0.0.1:$rgw_port
rgw data = $dir/rgw
keyring = $dir/rgw/keyring
CONF
    mkdir -p "$(dirname "$state")"
    echo "$dir $rgw_port $access $secret" > "$state"
    conf=(-c "$dir/ceph.conf")
    fail() { echo "error: $1 (logs in $dir/log)" >&2; cat "$dir"/log/*.log 2>/dev/null | tail -n 20 >&2; exit 1; }
    {
        ceph-authtool --create-keyring "$dir/keyring" --gen-key -n mon. --cap mon 'allow *'
        ceph-authtool "$dir/keyring" --gen-key -n client.admin --cap mon 'allow *' --cap osd 'allow *' \
            --cap mgr 'allow *'
        monmaptool --create --add a "127.0.0.1:$mon_port" --fsid "$fsid" "$dir/monmap"
        ceph-mon "${conf[@]}" --mkfs -i a --monmap "$dir/monmap" --keyring "$dir/keyring"
    } >"$dir/log/setup.log" 2>&1 || fail "could not create the monitor"
    daemon ceph-mon "${conf[@]}" -i a || fail "the monitor did not start"
    ceph_cli() { timeout 30 ceph "${conf[@]}" --connect-timeout 20 "$@"; }
    {
        ceph_cli osd create
        timeout 30 ceph-osd "${conf[@]}" -i 0 --mkfs --mkkey --no-mon-config \
            --osd-uuid "$(cat /proc/sys/kernel/random/uuid)"
        ceph_cli auth add osd.0 osd 'allow *' mon 'allow profile osd' -i "$dir/osd/keyring"
        ceph_cli osd crush add-bucket node host
        ceph_cli osd crush move node root=default
        ceph_cli osd crush add osd.0 1.0 host=node
        ceph_cli auth get-or-create client.rgw.a mon 'allow rw' osd 'allow rwx' -o "$dir/rgw/keyring"
    } >>"$dir/log/setup.log" 2>&1 || fail "could not set up the OSD"
    daemon ceph-osd "${conf[@]}" -i 0 || fail "the OSD did not start"
    daemon radosgw "${conf[@]}" -n client.rgw.a || fail "radosgw did not start"
    for _ in $(seq 1 120); do
        curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" && break
        sleep 0.5
    done
    curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" || fail "radosgw does not answer"
    timeout 60 radosgw-admin "${conf[@]}" -n client.admin user create --uid=strongroom --display-name=strongroom \
        --access-key="$access" --secret="$secret" >>"$dir/log/setup.log" 2>&1 || fail "could not create the S3 user"
    echo "http://$access:$secret@127.0.0.1:$rgw_port"
    ;;
stop)
    if [ -f "$state" ]; then
        read -r dir _ < "$state"
        stop_cluster "$dir"
        rm -f "$state"
    fi
    ;;
halt)
    read -r dir _ < "$state"
    pid="$(cat "$dir/run/client.rgw.a.pid" 2>/dev/null || true)"
    [ -n "$pid" ] || { echo "error: radosgw is not running" >&2; exit 1; }
    kill -s KILL "$pid" 2>/dev/null || true
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then echo "error: radosgw did not stop" >&2; exit 1; fi
    rm -f "$dir/run/client.rgw.a.pid"
    ;;
resume)
    read -r dir rgw_port access secret < "$state"
    daemon radosgw -c "$dir/ceph.conf" -n client.rgw.a || { echo "error: radosgw did not start" >&2; exit 1; }
    for _ in $(seq 1 240); do
        curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" && break
        sleep 0.5
    done
    curl -s -o /dev/null "http://127.0.0.1:$rgw_port/" || { echo "error: radosgw does not answer" >&2; exit 1; }
    echo "http://$access:$secret@127.0.0.1:$rgw_port"
    ;;
*)
    echo "usage: Scripts/radosgw.sh start|stop|halt|resume" >&2
    exit 2
    ;;
esac
