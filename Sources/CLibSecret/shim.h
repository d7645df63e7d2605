// Strongroom — SPDX-License-Identifier: Apache-2.0
// libsecret's store/lookup/clear/search calls are variadic, which Swift cannot call, and SecretSchema's attribute
// array imports as a tuple; these inline wrappers fix Strongroom's schema and attributes in C.
#include <libsecret/secret.h>

static inline const SecretSchema *strongroom_secret_schema(void) {
    static const SecretSchema schema = {
        "dev.strongroom.Keychain", SECRET_SCHEMA_NONE,
        {
            { "store", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "class", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "identity", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    return &schema;
}

static inline gboolean strongroom_secret_store(const char *store, const char *item_class, const char *identity,
                                               const char *label, const char *secret, GError **error) {
    return secret_password_store_sync(strongroom_secret_schema(), SECRET_COLLECTION_DEFAULT, label, secret, NULL,
                                      error, "store", store, "class", item_class, "identity", identity, NULL);
}

/// The secret text, to be released with secret_password_free (which wipes it), or NULL when absent or on error.
static inline gchar *strongroom_secret_lookup(const char *store, const char *item_class, const char *identity,
                                              GError **error) {
    return secret_password_lookup_sync(strongroom_secret_schema(), NULL, error, "store", store, "class", item_class,
                                       "identity", identity, NULL);
}

static inline gboolean strongroom_secret_clear(const char *store, const char *item_class, const char *identity,
                                               GError **error) {
    return secret_password_clear_sync(strongroom_secret_schema(), NULL, error, "store", store, "class", item_class,
                                      "identity", identity, NULL);
}

static inline gboolean strongroom_secret_clear_store(const char *store, GError **error) {
    return secret_password_clear_sync(strongroom_secret_schema(), NULL, error, "store", store, NULL);
}

/// Every secret of `store`, as a NULL-terminated array to be released with strongroom_secret_free_all.
static inline gchar **strongroom_secret_search_all(const char *store, GError **error) {
    GList *items = secret_password_search_sync(
        strongroom_secret_schema(), SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS, NULL,
        error, "store", store, NULL);
    if (error != NULL && *error != NULL) {
        return NULL;
    }
    guint count = g_list_length(items);
    gchar **secrets = g_new0(gchar *, count + 1);
    guint index = 0;
    for (GList *node = items; node != NULL; node = node->next) {
        SecretValue *value = secret_retrievable_retrieve_secret_sync(SECRET_RETRIEVABLE(node->data), NULL, NULL);
        if (value != NULL) {
            secrets[index++] = g_strdup(secret_value_get_text(value));
            secret_value_unref(value);
        }
    }
    g_list_free_full(items, g_object_unref);
    return secrets;
}

static inline void strongroom_secret_free_all(gchar **secrets) {
    if (secrets == NULL) {
        return;
    }
    for (gchar **cursor = secrets; *cursor != NULL; cursor++) {
        memset(*cursor, 0, strlen(*cursor));
    }
    g_strfreev(secrets);
}

static inline const char *strongroom_error_message(const GError *error) { return error->message; }
