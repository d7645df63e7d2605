// Strongroom — SPDX-License-Identifier: Apache-2.0
// Crash points for the seeded SIGKILL tests (CrashPointTests), preloaded into a Strongroom process:
//   LD_PRELOAD=crashpoint.so STRONGROOM_CRASH_AT=N   → the process SIGKILLs itself just before its Nth durable
//                                                     file operation (that operation never happens)
//   STRONGROOM_CRASH_COUNT=PATH                      → at exit, writes how many such operations the process made
//   STRONGROOM_CRASH_SOCKETS=1                       → a write to a socket counts too: for a process whose durable
//                                                     operations are requests to a server (a key rotation), killing
//                                                     it before its Nth socket write stops it between two requests
// A durable file operation is a write to a regular file (write, pwrite, writev, pwritev), fsync, fdatasync,
// ftruncate, rename or unlink: the points where a power cut or a kill can leave a file half-changed. Writes to
// pipes, sockets and terminals are not counted, so the count depends on what the process stores, not on its output.
// Build: clang -shared -fPIC -O1 -o crashpoint.so crashpoint.c -ldl
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_long operations;
static long crash_at;
static int sockets;

__attribute__((constructor)) static void crashpoint_start(void) {
    const char *at = getenv("STRONGROOM_CRASH_AT");
    crash_at = at ? strtol(at, NULL, 10) : 0;
    const char *counted = getenv("STRONGROOM_CRASH_SOCKETS");
    sockets = counted && counted[0] == '1';
}

__attribute__((destructor)) static void crashpoint_finish(void) {
    const char *path = getenv("STRONGROOM_CRASH_COUNT");
    if (!path) return;
    FILE *file = fopen(path, "w");
    if (!file) return;
    fprintf(file, "%ld\n", atomic_load(&operations));
    fclose(file);
}

static void point(void) {
    long count = atomic_fetch_add(&operations, 1) + 1;
    if (crash_at > 0 && count == crash_at) raise(SIGKILL);
}

// Whether a write to `fd` is a durable operation: a regular file, or a socket when sockets are counted.
static int regular(int fd) {
    struct stat info;
    if (fstat(fd, &info) != 0) return 0;
    return S_ISREG(info.st_mode) || (sockets && S_ISSOCK(info.st_mode));
}

#define NEXT(name) static __typeof__(name) *next; if (!next) next = (__typeof__(name) *)dlsym(RTLD_NEXT, #name)

ssize_t write(int fd, const void *buffer, size_t count) {
    NEXT(write);
    if (regular(fd)) point();
    return next(fd, buffer, count);
}

ssize_t pwrite(int fd, const void *buffer, size_t count, off_t offset) {
    NEXT(pwrite);
    if (regular(fd)) point();
    return next(fd, buffer, count, offset);
}

ssize_t pwrite64(int fd, const void *buffer, size_t count, off64_t offset) {
    NEXT(pwrite64);
    if (regular(fd)) point();
    return next(fd, buffer, count, offset);
}

ssize_t writev(int fd, const struct iovec *vector, int count) {
    NEXT(writev);
    if (regular(fd)) point();
    return next(fd, vector, count);
}

ssize_t pwritev(int fd, const struct iovec *vector, int count, off_t offset) {
    NEXT(pwritev);
    if (regular(fd)) point();
    return next(fd, vector, count, offset);
}

int fsync(int fd) {
    NEXT(fsync);
    point();
    return next(fd);
}

int fdatasync(int fd) {
    NEXT(fdatasync);
    point();
    return next(fd);
}

int ftruncate(int fd, off_t length) {
    NEXT(ftruncate);
    point();
    return next(fd, length);
}

int ftruncate64(int fd, off64_t length) {
    NEXT(ftruncate64);
    point();
    return next(fd, length);
}

int rename(const char *from, const char *to) {
    NEXT(rename);
    point();
    return next(from, to);
}

int renameat(int from_dir, const char *from, int to_dir, const char *to) {
    NEXT(renameat);
    point();
    return next(from_dir, from, to_dir, to);
}

int unlink(const char *path) {
    NEXT(unlink);
    point();
    return next(path);
}

ssize_t send(int fd, const void *buffer, size_t count, int flags) {
    NEXT(send);
    if (regular(fd)) point();
    return next(fd, buffer, count, flags);
}

ssize_t sendto(int fd, const void *buffer, size_t count, int flags, const struct sockaddr *to, socklen_t length) {
    NEXT(sendto);
    if (regular(fd)) point();
    return next(fd, buffer, count, flags, to, length);
}

ssize_t sendmsg(int fd, const struct msghdr *message, int flags) {
    NEXT(sendmsg);
    if (regular(fd)) point();
    return next(fd, message, flags);
}
