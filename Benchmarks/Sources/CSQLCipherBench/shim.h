// Strongroom — SPDX-License-Identifier: Apache-2.0
// SQLCipher 4 from Debian's bookworm-backports (libsqlcipher-dev 4.6.1; Scripts/install-sqlcipher.sh). The key
// functions (sqlite3_key, sqlite3_rekey) are declared only when SQLITE_HAS_CODEC is defined.
#ifndef STRONGROOM_CSQLCIPHER_H
#define STRONGROOM_CSQLCIPHER_H
#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>
#endif
