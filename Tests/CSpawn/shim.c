// Strongroom — SPDX-License-Identifier: Apache-2.0
// The test support's process start (StrongroomTesting's ChildProcess): posix_spawn with glibc's chdir and closefrom
// file actions, which Swift's Glibc module does not declare (they need _GNU_SOURCE).
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <unistd.h>

#include "CSpawn.h"

static void stream(posix_spawn_file_actions_t *actions, int given, int target, int mode) {
    if (given >= 0) {
        posix_spawn_file_actions_adddup2(actions, given, target);
    } else {
        posix_spawn_file_actions_addopen(actions, target, "/dev/null", mode, 0);
    }
}

int cspawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory, int input,
           int output, int error) {
    posix_spawn_file_actions_t actions;
    posix_spawnattr_t attributes;
    int result = posix_spawn_file_actions_init(&actions);
    if (result != 0) return result;
    result = posix_spawnattr_init(&attributes);
    if (result != 0) {
        posix_spawn_file_actions_destroy(&actions);
        return result;
    }
    stream(&actions, input, 0, O_RDONLY);
    stream(&actions, output, 1, O_WRONLY);
    stream(&actions, error, 2, O_WRONLY);
    if (directory != NULL) posix_spawn_file_actions_addchdir_np(&actions, directory);
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);
    sigset_t defaults, mask;
    sigfillset(&defaults);
    sigdelset(&defaults, SIGKILL);
    sigdelset(&defaults, SIGSTOP);
    sigemptyset(&mask);
    posix_spawnattr_setsigdefault(&attributes, &defaults);
    posix_spawnattr_setsigmask(&attributes, &mask);
    posix_spawnattr_setflags(&attributes, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
    result = posix_spawn(pid, path, &actions, &attributes, argv, envp);
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attributes);
    return result;
}
