// Strongroom — SPDX-License-Identifier: Apache-2.0
#ifndef STRONGROOM_STRICT_POOL_H
#define STRONGROOM_STRICT_POOL_H

/// Nonzero when this test process asked for a one-thread Swift concurrency pool (STRONGROOM_STRICT_POOL=1) and
/// the hook that provides it was installed before the first task ran.
int strongroom_strict_pool_installed(void);

#endif
