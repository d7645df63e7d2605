// Strongroom — SPDX-License-Identifier: Apache-2.0
#if defined(__linux__)
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#endif
#include <errno.h>

#include "CFileSync.h"

#if defined(__linux__)
int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length) {
    if (offset < 0 || length < 0) return -1;
    return sync_file_range(descriptor, (off_t)offset, (off_t)length, SYNC_FILE_RANGE_WRITE);
}

int cfilesync_open_unnamed(const char *directory) {
    return open(directory, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
}

int cfilesync_link_unnamed(int descriptor, const char *path) {
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", descriptor);
    return linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW);
}
#else
int cfilesync_open_unnamed(const char *directory) {
    (void)directory;
    errno = ENOTSUP;
    return -1;
}

int cfilesync_link_unnamed(int descriptor, const char *path) {
    (void)descriptor;
    (void)path;
    errno = ENOTSUP;
    return -1;
}

int cfilesync_start_writeback(int descriptor, int64_t offset, int64_t length) {
    (void)descriptor;
    (void)offset;
    (void)length;
    return -1;
}
#endif
