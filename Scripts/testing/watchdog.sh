#!/usr/bin/env bash
# Strongroom — SPDX-License-Identifier: Apache-2.0
# Runs a test command with a time bound, so that a hang fails the run with its cause instead of using up CI's time in
# silence. Past MINUTES it prints the tests that started and never ended, every thread's stack of each test process
# (gdb, when installed), then stops the command and exits 124. Otherwise it exits with the command's status.
# Before the stop, gdb has each test process flush its standard output, so the list of tests in flight is complete.
# (Not stdbuf: its LD_PRELOAD is exactly what the shield's integrity check reports.)
#
# Usage: Scripts/testing/watchdog.sh MINUTES command [arguments…]
set -euo pipefail
minutes="${1:?usage: Scripts/testing/watchdog.sh MINUTES command [arguments…]}"
shift
case "$minutes" in '' | *[!0-9]*) echo "watchdog: MINUTES must be a whole number" >&2; exit 64 ;; esac
[ "$#" -gt 0 ] || { echo "watchdog: no command" >&2; exit 64; }

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
# Its own session (setsid keeps the PID: a background job is no group leader), so a stop reaches every process the
# command started (dbus-run-session, swift test, the test binary and the servers it runs, each in a process group of
# its own).
setsid "$@" >"$log" 2>&1 &
pid=$!
# Ctrl-C reaches this script's process group, not the command's session: pass it on, so that nothing is left running.
stop_command() {
    pkill -TERM -s "$pid" 2>/dev/null || true
    sleep 2
    pkill -KILL -s "$pid" 2>/dev/null || true
}
trap 'stop_command; exit 130' INT
trap 'stop_command; exit 143' TERM
tail -n +1 -f --pid="$pid" "$log" &
follower=$!
deadline=$(($(date +%s) + minutes * 60))
while kill -0 "$pid" 2>/dev/null && [ "$(date +%s)" -lt "$deadline" ]; do sleep 5; done

if kill -0 "$pid" 2>/dev/null; then
    set +e  # the report is best effort: an empty list or a missing tool must not end it before the stop
    {
        echo
        echo "watchdog: still running after $minutes minutes: stopping it (load $(cut -d' ' -f1-3 /proc/loadavg))"
        for process in $(pgrep -s "$pid" -f 'xctest|PackageTests' || true); do
            echo "watchdog: the busy threads of process $process ($(tr '\0' ' ' </proc/"$process"/cmdline | cut -c1-100)):"
            if command -v gdb >/dev/null; then
                timeout 300 gdb -p "$process" -batch -ex 'thread apply all bt 40' -ex 'call (int) fflush(0)' 2>/dev/null \
                    | awk -f "$(dirname "$0")/compact-stacks.awk" | swift demangle --simplified | cut -c1-700
            else
                echo "    (gdb is not installed: no stacks)"
            fi
        done
        # Last, so that it is in the tail of the log: the tests in flight. Test cases ("case passing … to") print no
        # end of their own: their test's line ends them; "Test run started." is the run's.
        started="$(sed -nE 's/^◇ Test (.*) started\.$/\1/p' "$log" | grep -v -e '^case passing' -e '^run$' | sort -u)"
        ended="$(sed -nE 's/^(✔|✘|➜) Test (.*) (passed|failed|skipped)( after .*)?\.?$/\2/p' "$log" \
            | sed -E 's/ with [0-9]+ test cases?$//' | sort -u)"
        inflight="$(comm -23 <(printf '%s\n' "$started") <(printf '%s\n' "$ended"))"
        echo "watchdog: $(printf '%s\n' "$inflight" | grep -c .) tests started and did not end (the first 60):"
        printf '%s\n' "$inflight" | grep . | head -n 60 | cut -c1-200 | sed 's/^/    /'
    } >&2
    stop_command
    wait "$pid" 2>/dev/null || true
    wait "$follower" 2>/dev/null || true
    exit 124
fi
status=0
wait "$pid" || status=$?
wait "$follower" 2>/dev/null || true
exit "$status"
