// Strongroom — SPDX-License-Identifier: Apache-2.0
// A C face over RE2 (Debian's libre2-dev): linear-time regular expressions for the server's v2 search and the datastore's $regex.
#ifndef STRONGROOM_CRE2_H
#define STRONGROOM_CRE2_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A compiled RE2 program (opaque).
typedef struct strongroom_re2 strongroom_re2;

/// Compiles `pattern` (UTF-8, `length` bytes) as RE2 syntax, with `.` matching newlines, no capture groups and
/// at most `max_memory` bytes for the compiled program and its DFA cache. Returns NULL when the pattern is invalid
/// or too large.
strongroom_re2 *strongroom_re2_compile(const char *pattern, size_t length, int64_t max_memory);

/// Compiles a glob (`*` = any run, `?` = one character, everything else literal) the same way.
strongroom_re2 *strongroom_re2_compile_glob(const char *glob, size_t length, int64_t max_memory);

/// Whether the whole of `text` matches (1) or not (0).
int strongroom_re2_full_match(const strongroom_re2 *program, const char *text, size_t length);

/// Whether some part of `text` matches (1) or not (0).
int strongroom_re2_partial_match(const strongroom_re2 *program, const char *text, size_t length);

/// Frees a program from one of the compile functions (NULL is accepted).
void strongroom_re2_free(strongroom_re2 *program);

#ifdef __cplusplus
}
#endif

#endif
