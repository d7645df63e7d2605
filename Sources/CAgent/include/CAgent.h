// Strongroom — SPDX-License-Identifier: Apache-2.0
// The GNU and BSD process and socket calls `strongroom agent` needs that Swift's Glibc module leaves out.
#ifndef STRONGROOM_CAGENT_H
#define STRONGROOM_CAGENT_H

#include <stdint.h>
#include <sys/types.h>

/// Accepts a connection on `listener` with close-on-exec set. The descriptor, or -1 with `errno` set.
int cagent_accept(int listener);

/// The user ID of the peer of the connected Unix socket `descriptor`, from the kernel (`SO_PEERCRED`, or
/// `getpeereid` on BSDs). 0 with `*uid` set, or -1.
int cagent_peer_uid(int descriptor, uint32_t *uid);

/// A pipe whose two ends close on exec. 0, or -1 with `errno` set.
int cagent_pipe(int descriptors[2]);

/// Makes this process undumpable: no core file, and no ptrace attach by other processes of the same user.
void cagent_disable_dumps(void);

/// Spawns `path` with `argv` in a new session (so the terminal's interrupt and hang-up do not reach it), with
/// `input` as its standard input, `output` as its standard output, /dev/null as its standard error, every other
/// descriptor closed, and SIGINT, SIGTERM, SIGHUP and SIGPIPE at their defaults, unblocked. 0 with `*pid` set, or
/// an `errno` value.
int cagent_spawn(pid_t *pid, const char *path, char *const argv[], int input, int output);

#endif
