// Strongroom — SPDX-License-Identifier: Apache-2.0
#ifndef CSPAWN_H
#define CSPAWN_H

#include <sys/types.h>

/// Starts `path` with `argv` and `envp` (both NULL-terminated) in `directory` (NULL: the caller's), its standard
/// input, output and error on `input`, `output` and `error` (-1: /dev/null), every other descriptor closed, every
/// signal at its default disposition and none blocked. Returns 0 or an errno value.
int cspawn(pid_t *pid, const char *path, char *const argv[], char *const envp[], const char *directory, int input,
           int output, int error);

#endif
