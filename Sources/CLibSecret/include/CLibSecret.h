// Strongroom — SPDX-License-Identifier: Apache-2.0
// The Secret Service calls StrongroomSecretService makes, through C wrappers (libsecret's store/lookup/clear/search
// calls are variadic or take hash tables, which Swift cannot build). This header declares only what Swift calls, with
// plain C types: it does not include libsecret's or GLib's headers, whose pkg-config flags carry `-pthread`, which
// SwiftPM prohibits in a package other packages depend on ("prohibited flag(s): -pthread" on every build of an app).
// shim.c declares the few libsecret and GLib functions it calls by hand; Scripts/check-libsecret-declarations.sh
// (run by a test) compiles it against the real headers, so a declaration that drifts from libsecret's fails there.
#ifndef STRONGROOM_CLIBSECRET_H
#define STRONGROOM_CLIBSECRET_H

#include <stdint.h>

#ifdef STRONGROOM_CHECK_AGAINST_LIBSECRET
#include <libsecret/secret.h>
#else
/// GLib's error, whose layout (a quark, a code, a message) is part of GLib's stable ABI.
typedef struct _GError {
    uint32_t domain;
    int code;
    char *message;
} GError;
#endif

/// Stores `secret` in Strongroom's own schema (store, class, identity) in the default collection. Non-zero on
/// success; on failure `*error` is set.
int strongroom_secret_store(const char *store, const char *item_class, const char *identity, const char *label,
                            const char *secret, GError **error);

/// Stores a standard item (`kind` 1: org.freedesktop.Secret.Generic, 2: org.gnome.keyring.NetworkPassword) with
/// `count` attributes given as parallel arrays. Non-zero on success.
int strongroom_standard_store(int kind, const char **keys, const char **values, int count, const char *label,
                              const char *secret, GError **error);

/// Deletes the items matching the attributes (`kind` 1 to 4; 3 and 4 match whatever schema name an item carries).
int strongroom_standard_clear(int kind, const char **keys, const char **values, int count, GError **error);

/// The first item matching the attributes: its secret text (released with secret_password_free) and its
/// `strongroom-info` attribute (g_free; NULL when it has none). Zero when there is none or on error.
int strongroom_standard_find(int kind, const char **keys, const char **values, int count, char **secret,
                             char **info, GError **error);

/// Every item matching the attributes: NULL-terminated arrays of secret texts and of `strongroom-info` values (an
/// empty string where an item has none), both released with strongroom_secret_free_all.
void strongroom_standard_find_all(int kind, const char **keys, const char **values, int count, char ***secrets,
                                  char ***infos, GError **error);

/// Wipes, then frees, a NULL-terminated array of strings (strongroom_standard_find_all's).
void strongroom_secret_free_all(char **secrets);

/// A GError's message.
const char *strongroom_error_message(const GError *error);

/// GLib's and libsecret's release functions.
void g_error_free(GError *error);
void g_free(void *memory);
void secret_password_free(char *password);

#endif
