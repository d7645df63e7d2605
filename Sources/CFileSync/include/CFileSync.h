// Strongroom — SPDX-License-Identifier: Apache-2.0
// sync_file_range is a GNU extension that Swift's Glibc module leaves out: this wrapper reaches it.
#ifndef STRONGROOM_CFILESYNC_H
#define STRONGROOM_CFILESYNC_H

#include <stdint.h>

/// Asks the kernel to start writing the dirty pages of `length` bytes at `offset` to disk and returns without
/// waiting for them (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so that a later fsync finds little
/// left to write. Only a hint: it makes nothing durable. 0 when started, -1 on error or where unsupported.
int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length);

#endif
