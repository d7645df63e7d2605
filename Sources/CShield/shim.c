// Strongroom — SPDX-License-Identifier: Apache-2.0
#include "CShield.h"

#if defined(__linux__)
#include <sys/prctl.h>

int cshield_get_dumpable(void) { return prctl(PR_GET_DUMPABLE, 0, 0, 0, 0); }

int cshield_set_non_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }

int cshield_get_no_new_privs(void) { return prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0); }
#else
int cshield_get_dumpable(void) { return -1; }

int cshield_set_non_dumpable(void) { return -1; }

int cshield_get_no_new_privs(void) { return -1; }
#endif
