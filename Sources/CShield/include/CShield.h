// Strongroom — SPDX-License-Identifier: Apache-2.0
// prctl is variadic in C, so Swift cannot call it: these wrappers can.
#ifndef STRONGROOM_CSHIELD_H
#define STRONGROOM_CSHIELD_H

/// Whether the process may dump core and be attached to by same-user debuggers (1), or not (0); -1 on error.
int cshield_get_dumpable(void);

/// Marks the process non-dumpable (no core file, no same-user ptrace attach). 0 on success, -1 on error.
int cshield_set_non_dumpable(void);

/// The no_new_privs bit (1 set, 0 clear, -1 on error).
int cshield_get_no_new_privs(void);

#endif
