// Strongroom — SPDX-License-Identifier: Apache-2.0
#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#endif

#include "CFileSync.h"

#if defined(__linux__)
int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length) {
    if (offset < 0 || length < 0) return -1;
    return sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}
#else
int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length) {
    (void)descriptor;
    (void)offset;
    (void)length;
    return -1;
}
#endif
