// Strongroom — SPDX-License-Identifier: Apache-2.0
// sync_file_range is a GNU extension that Swift's Glibc module leaves out: this wrapper reaches it.
#ifndef STRONGROOM_CFILESYNC_H
#define STRONGROOM_CFILESYNC_H

#include <stdint.h>

/// Asks the kernel to start writing the dirty pages of `length` bytes at `offset` to disk and returns without
/// waiting for them (Linux's `sync_file_range` with `SYNC_FILE_RANGE_WRITE`), so that a later fsync finds little
/// left to write. Only a hint: it makes nothing durable. 0 when started, -1 on error or where unsupported.
int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length);

/// Opens an unnamed regular file (mode 0600) for writing in `directory` (Linux's `O_TMPFILE`): it has no name, so
/// the kernel frees it when the last descriptor closes, whatever ends the process. The descriptor, or -1 with
/// `errno` set (EOPNOTSUPP or EISDIR where the file system or the system lacks it).
int cfilesync_open_unnamed(const char *directory);

/// Gives the unnamed file behind `descriptor` the name `path`, which must not exist (EEXIST otherwise): through
/// `/proc/self/fd`, as `open(2)` documents for `O_TMPFILE`. 0, or -1 with `errno` set.
int cfilesync_link_unnamed(int descriptor, const char *path);

#endif
