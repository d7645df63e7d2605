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

/// Wipes, then frees, a NULL-terminated array of strings (strongroom_standard_find_all's).
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

// Standard items, which other tools read (secret-tool, Python keyring, git's libsecret helper): passwords stored
// under the freedesktop schemas' attribute names with the password itself as the secret. Attributes come as
// parallel arrays (libsecret's *v calls take a hash table); `kind` picks the schema:
//   1: org.freedesktop.Secret.Generic (service, username) and Strongroom's own attributes
//   2: org.gnome.keyring.NetworkPassword (user, server, protocol, port, object, domain) and Strongroom's own
//   3 and 4: the same attribute sets, matching items whatever schema name they carry (written by other tools)
static inline const SecretSchema *strongroom_standard_schema(int kind) {
    static const SecretSchema generic = {
        "org.freedesktop.Secret.Generic", SECRET_SCHEMA_NONE,
        {
            { "service", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "username", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "store", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "class", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "identity", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "strongroom-info", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    static const SecretSchema network = {
        "org.gnome.keyring.NetworkPassword", SECRET_SCHEMA_NONE,
        {
            { "user", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "server", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "protocol", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "port", SECRET_SCHEMA_ATTRIBUTE_INTEGER },
            { "object", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "domain", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "store", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "class", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "identity", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { "strongroom-info", SECRET_SCHEMA_ATTRIBUTE_STRING },
            { NULL, 0 },
        }
    };
    static SecretSchema any_generic;
    static SecretSchema any_network;
    static gsize ready = 0;
    if (g_once_init_enter(&ready)) {
        any_generic = generic;
        any_generic.flags = SECRET_SCHEMA_DONT_MATCH_NAME;
        any_network = network;
        any_network.flags = SECRET_SCHEMA_DONT_MATCH_NAME;
        g_once_init_leave(&ready, 1);
    }
    switch (kind) {
    case 1: return &generic;
    case 2: return &network;
    case 3: return &any_generic;
    default: return &any_network;
    }
}

static inline GHashTable *strongroom_attributes(const char **keys, const char **values, int count) {
    GHashTable *table = g_hash_table_new(g_str_hash, g_str_equal);
    for (int index = 0; index < count; index++) {
        g_hash_table_insert(table, (gpointer)keys[index], (gpointer)values[index]);
    }
    return table;
}

static inline gboolean strongroom_standard_store(int kind, const char **keys, const char **values, int count,
                                                 const char *label, const char *secret, GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    gboolean ok = secret_password_storev_sync(strongroom_standard_schema(kind), attributes, SECRET_COLLECTION_DEFAULT,
                                              label, secret, NULL, error);
    g_hash_table_unref(attributes);
    return ok;
}

static inline gboolean strongroom_standard_clear(int kind, const char **keys, const char **values, int count,
                                                 GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    gboolean ok = secret_password_clearv_sync(strongroom_standard_schema(kind), attributes, NULL, error);
    g_hash_table_unref(attributes);
    return ok;
}

/// The first item matching the attributes: its secret text (released with secret_password_free) and the value of
/// its `strongroom-info` attribute (g_free; NULL when it has none). FALSE when there is none or on error.
static inline gboolean strongroom_standard_find(int kind, const char **keys, const char **values, int count,
                                                gchar **secret, gchar **info, GError **error) {
    *secret = NULL;
    *info = NULL;
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    GList *items = secret_password_searchv_sync(strongroom_standard_schema(kind), attributes,
                                                SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS, NULL, error);
    g_hash_table_unref(attributes);
    if (items == NULL) {
        return FALSE;
    }
    SecretRetrievable *item = SECRET_RETRIEVABLE(items->data);
    SecretValue *value = secret_retrievable_retrieve_secret_sync(item, NULL, error);
    if (value != NULL) {
        const gchar *text = secret_value_get_text(value);
        *secret = text != NULL ? g_strdup(text) : NULL;
        secret_value_unref(value);
    }
    GHashTable *found = secret_retrievable_get_attributes(item);
    if (found != NULL) {
        const gchar *text = g_hash_table_lookup(found, "strongroom-info");
        *info = text != NULL ? g_strdup(text) : NULL;
        g_hash_table_unref(found);
    }
    g_list_free_full(items, g_object_unref);
    return *secret != NULL;
}

/// Every item matching the attributes: NULL-terminated arrays of secret texts and of `strongroom-info` values
/// (an empty string where an item has none), both released with strongroom_secret_free_all.
static inline void strongroom_standard_find_all(int kind, const char **keys, const char **values, int count,
                                                gchar ***secrets, gchar ***infos, GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    GList *items = secret_password_searchv_sync(strongroom_standard_schema(kind), attributes,
                                                SECRET_SEARCH_ALL | SECRET_SEARCH_UNLOCK | SECRET_SEARCH_LOAD_SECRETS,
                                                NULL, error);
    g_hash_table_unref(attributes);
    guint total = g_list_length(items);
    *secrets = g_new0(gchar *, total + 1);
    *infos = g_new0(gchar *, total + 1);
    guint index = 0;
    for (GList *node = items; node != NULL; node = node->next) {
        SecretRetrievable *item = SECRET_RETRIEVABLE(node->data);
        SecretValue *value = secret_retrievable_retrieve_secret_sync(item, NULL, NULL);
        const gchar *text = value != NULL ? secret_value_get_text(value) : NULL;
        if (text != NULL) {
            GHashTable *found = secret_retrievable_get_attributes(item);
            const gchar *info = found != NULL ? g_hash_table_lookup(found, "strongroom-info") : NULL;
            (*secrets)[index] = g_strdup(text);
            (*infos)[index] = g_strdup(info != NULL ? info : "");
            index++;
            if (found != NULL) {
                g_hash_table_unref(found);
            }
        }
        if (value != NULL) {
            secret_value_unref(value);
        }
    }
    g_list_free_full(items, g_object_unref);
}
