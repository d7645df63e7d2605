// Strongroom — SPDX-License-Identifier: Apache-2.0
// libsodium from Debian's libsodium-dev (1.0.18 on bookworm).
#include <sodium.h>
