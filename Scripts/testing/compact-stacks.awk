# Strongroom — SPDX-License-Identifier: Apache-2.0
# Reads gdb's `thread apply all bt` and prints one line per thread: its name and its innermost frames' functions.
# Idle Dispatch workers (waiting for work) are left out. Used by Scripts/testing/watchdog.sh.
function flush() {
    if (header != "" && frames != "" && frames !~ /_dispatch_sema4_timedwait < _dispatch_semaphore_wait_slow < _dispatch_worker_thread/)
        print header ": " frames
    header = ""; frames = ""; count = 0
}
/^Thread / {
    flush()
    name = $0; sub(/^Thread [0-9]+ \(Thread 0x[0-9a-f]+ \(LWP [0-9]+\) /, "", name); sub(/\):?$/, "", name)
    header = "  thread " $2 " " name
    next
}
/^#[0-9]+ / {
    line = $0
    sub(/^#[0-9]+ +(0x[0-9a-f]+ in )?/, "", line)
    sub(/ \(.*$/, "", line)
    if (count < 12) frames = frames (count ? " < " : "") line
    count++
}
END { flush() }
