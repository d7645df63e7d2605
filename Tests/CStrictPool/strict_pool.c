// Strongroom — SPDX-License-Identifier: Apache-2.0
//
// The strict-pool CI pass: with STRONGROOM_STRICT_POOL=1 in its environment, the test process runs every Swift
// concurrency job on ONE thread, so a blocking call on the cooperative pool (a semaphore wait, an fsync, a
// synchronous keychain read) stalls the suite instead of hiding behind a second thread. Apple's libdispatch has
// LIBDISPATCH_COOPERATIVE_POOL_STRICT for this; the Linux libdispatch ignores it (checked: a probe of 16 sleeping
// tasks still ran 2 at a time), and so does taskset. The equivalent here is the Swift runtime's global-enqueue hook,
// installed by SwiftNIO's NIOSingletons with a one-loop singleton group: it must be in place before any task runs,
// hence a constructor. The installer itself is Swift (StrongroomTransportTests/StrictPool.swift), reached through a
// weak reference so this file links on its own.
#include "strict_pool.h"

#include <stdlib.h>
#include <string.h>

extern int strongroom_install_strict_pool(void) __attribute__((weak));

static int installed = 0;

__attribute__((constructor)) static void strongroom_strict_pool_constructor(void) {
    const char *wanted = getenv("STRONGROOM_STRICT_POOL");
    if (wanted == NULL || strcmp(wanted, "1") != 0 || strongroom_install_strict_pool == NULL) {
        return;
    }
    installed = strongroom_install_strict_pool();
}

int strongroom_strict_pool_installed(void) { return installed; }
