// Strongroom — SPDX-License-Identifier: Apache-2.0
// The wrappers CLibSecret.h declares, over libsecret and GLib functions declared here by hand (see the header for
// why). Every declaration below is checked against libsecret's and GLib's own headers by
// Scripts/check-libsecret-declarations.sh, which compiles this file with STRONGROOM_CHECK_AGAINST_LIBSECRET: a
// conflicting prototype or a schema layout that differs is a compile error there. Function names are parenthesised
// so that a GLib macro of the same name (g_str_equal is one) cannot rewrite the declaration.
#include "CLibSecret.h"

#include <stddef.h>
#include <string.h>

/// libsecret's SecretSchema (secret-schema.h), field for field: a name, flags, 32 attributes (a name and a type),
/// then reserved space.
typedef struct {
    const char *name;
    int type;
} StrongroomSchemaAttribute;

typedef struct {
    const char *name;
    int flags;
    StrongroomSchemaAttribute attributes[32];
    int reserved;
    void *reserved1;
    void *reserved2;
    void *reserved3;
    void *reserved4;
    void *reserved5;
    void *reserved6;
    void *reserved7;
} StrongroomSchema;

#ifdef STRONGROOM_CHECK_AGAINST_LIBSECRET
_Static_assert(sizeof(StrongroomSchema) == sizeof(SecretSchema), "SecretSchema's size");
_Static_assert(_Alignof(StrongroomSchema) == _Alignof(SecretSchema), "SecretSchema's alignment");
_Static_assert(offsetof(StrongroomSchema, flags) == offsetof(SecretSchema, flags), "SecretSchema.flags");
_Static_assert(offsetof(StrongroomSchema, attributes) == offsetof(SecretSchema, attributes), "attributes");
_Static_assert(offsetof(StrongroomSchema, reserved7) == offsetof(SecretSchema, reserved7), "reserved7");
_Static_assert(sizeof(StrongroomSchemaAttribute) == sizeof(SecretSchemaAttribute), "SecretSchemaAttribute");
_Static_assert(sizeof(SecretSchemaFlags) == sizeof(int), "SecretSchemaFlags");
_Static_assert(sizeof(SecretSearchFlags) == sizeof(unsigned int), "SecretSearchFlags");
_Static_assert(sizeof(GError) == sizeof(struct { uint32_t d; int c; char *m; }), "GError");
_Static_assert(offsetof(GError, message) == offsetof(struct { uint32_t d; int c; char *m; }, m), "GError.message");
_Static_assert(sizeof(GList) == 3 * sizeof(void *) && offsetof(GList, next) == sizeof(void *), "GList");
_Static_assert(SECRET_SCHEMA_ATTRIBUTE_STRING == 0 && SECRET_SCHEMA_ATTRIBUTE_INTEGER == 1, "attribute types");
_Static_assert(SECRET_SCHEMA_NONE == 0 && SECRET_SCHEMA_DONT_MATCH_NAME == 2, "schema flags");
_Static_assert(SECRET_SEARCH_ALL == 2 && SECRET_SEARCH_UNLOCK == 4 && SECRET_SEARCH_LOAD_SECRETS == 8, "search flags");
#define STRONGROOM_SCHEMA(schema) ((const SecretSchema *)(schema))
#else
typedef struct _GHashTable GHashTable;
typedef struct _GList {
    void *data;
    struct _GList *next;
    struct _GList *prev;
} GList;
typedef struct _GCancellable GCancellable;
typedef struct _SecretValue SecretValue;
typedef struct _SecretRetrievable SecretRetrievable;
typedef StrongroomSchema SecretSchema;
typedef unsigned int SecretSearchFlags;
#define STRONGROOM_SCHEMA(schema) (schema)
#endif

enum {
    strongroom_attribute_string = 0,
    strongroom_attribute_integer = 1,
    strongroom_dont_match_name = 1 << 1,
    strongroom_search_all = 1 << 1,
    strongroom_search_unlock = 1 << 2,
    strongroom_search_load_secrets = 1 << 3,
};

/// SECRET_COLLECTION_DEFAULT.
static const char strongroom_default_collection[] = "default";

// GLib (glib-2.0, gobject-2.0).
unsigned int(g_str_hash)(const void *value);
int(g_str_equal)(const void *first, const void *second);
GHashTable *(g_hash_table_new)(unsigned int (*hash)(const void *), int (*equal)(const void *, const void *));
int(g_hash_table_insert)(GHashTable *table, void *key, void *value);
void *(g_hash_table_lookup)(GHashTable *table, const void *key);
void(g_hash_table_unref)(GHashTable *table);
unsigned int(g_list_length)(GList *list);
void(g_list_free_full)(GList *list, void (*free_function)(void *));
void(g_object_unref)(void *object);
char *(g_strdup)(const char *text);
void(g_strfreev)(char **texts);
void *(g_malloc0_n)(unsigned long count, unsigned long size);

// libsecret (secret-1).
int(secret_password_store_sync)(const SecretSchema *schema, const char *collection, const char *label,
                                const char *password, GCancellable *cancellable, GError **error, ...);
int(secret_password_storev_sync)(const SecretSchema *schema, GHashTable *attributes, const char *collection,
                                 const char *label, const char *password, GCancellable *cancellable, GError **error);
int(secret_password_clearv_sync)(const SecretSchema *schema, GHashTable *attributes, GCancellable *cancellable,
                                 GError **error);
GList *(secret_password_searchv_sync)(const SecretSchema *schema, GHashTable *attributes, SecretSearchFlags flags,
                                      GCancellable *cancellable, GError **error);
SecretValue *(secret_retrievable_retrieve_secret_sync)(SecretRetrievable *self, GCancellable *cancellable,
                                                       GError **error);
GHashTable *(secret_retrievable_get_attributes)(SecretRetrievable *self);
const char *(secret_value_get_text)(SecretValue *value);
void(secret_value_unref)(void *value);

static const StrongroomSchema strongroom_schema = {
    "dev.strongroom.Keychain", 0,
    {
        { "store", strongroom_attribute_string },
        { "class", strongroom_attribute_string },
        { "identity", strongroom_attribute_string },
        { NULL, 0 },
    },
};

#define STRONGROOM_GENERIC_ATTRIBUTES                                                                                 \
    {                                                                                                                 \
        { "service", strongroom_attribute_string }, { "username", strongroom_attribute_string },                      \
            { "store", strongroom_attribute_string }, { "class", strongroom_attribute_string },                       \
            { "identity", strongroom_attribute_string }, { "strongroom-info", strongroom_attribute_string },          \
        {                                                                                                             \
            NULL, 0                                                                                                   \
        }                                                                                                             \
    }

#define STRONGROOM_NETWORK_ATTRIBUTES                                                                                 \
    {                                                                                                                 \
        { "user", strongroom_attribute_string }, { "server", strongroom_attribute_string },                           \
            { "protocol", strongroom_attribute_string }, { "port", strongroom_attribute_integer },                    \
            { "object", strongroom_attribute_string }, { "domain", strongroom_attribute_string },                     \
            { "store", strongroom_attribute_string }, { "class", strongroom_attribute_string },                       \
            { "identity", strongroom_attribute_string }, { "strongroom-info", strongroom_attribute_string },          \
        {                                                                                                             \
            NULL, 0                                                                                                   \
        }                                                                                                             \
    }

// Standard items, which other tools read (secret-tool, Python keyring, git's libsecret helper): passwords stored
// under the freedesktop schemas' attribute names with the password itself as the secret. `kind` picks the schema:
//   1: org.freedesktop.Secret.Generic (service, username) and Strongroom's own attributes
//   2: org.gnome.keyring.NetworkPassword (user, server, protocol, port, object, domain) and Strongroom's own
//   3 and 4: the same attribute sets, matching items whatever schema name they carry (written by other tools)
static const StrongroomSchema strongroom_generic = { "org.freedesktop.Secret.Generic", 0,
                                                     STRONGROOM_GENERIC_ATTRIBUTES };
static const StrongroomSchema strongroom_network = { "org.gnome.keyring.NetworkPassword", 0,
                                                     STRONGROOM_NETWORK_ATTRIBUTES };
static const StrongroomSchema strongroom_any_generic = { "org.freedesktop.Secret.Generic", strongroom_dont_match_name,
                                                         STRONGROOM_GENERIC_ATTRIBUTES };
static const StrongroomSchema strongroom_any_network = { "org.gnome.keyring.NetworkPassword",
                                                         strongroom_dont_match_name, STRONGROOM_NETWORK_ATTRIBUTES };

static const SecretSchema *strongroom_standard_schema(int kind) {
    switch (kind) {
    case 1: return STRONGROOM_SCHEMA(&strongroom_generic);
    case 2: return STRONGROOM_SCHEMA(&strongroom_network);
    case 3: return STRONGROOM_SCHEMA(&strongroom_any_generic);
    default: return STRONGROOM_SCHEMA(&strongroom_any_network);
    }
}

static GHashTable *strongroom_attributes(const char **keys, const char **values, int count) {
    GHashTable *table = g_hash_table_new(g_str_hash, g_str_equal);
    for (int index = 0; index < count; index++) {
        g_hash_table_insert(table, (void *)keys[index], (void *)values[index]);
    }
    return table;
}

int strongroom_secret_store(const char *store, const char *item_class, const char *identity, const char *label,
                            const char *secret, GError **error) {
    return secret_password_store_sync(STRONGROOM_SCHEMA(&strongroom_schema), strongroom_default_collection, label,
                                      secret, NULL, error, "store", store, "class", item_class, "identity", identity,
                                      (char *)NULL);
}

int strongroom_standard_store(int kind, const char **keys, const char **values, int count, const char *label,
                              const char *secret, GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    int ok = secret_password_storev_sync(strongroom_standard_schema(kind), attributes, strongroom_default_collection,
                                         label, secret, NULL, error);
    g_hash_table_unref(attributes);
    return ok;
}

int strongroom_standard_clear(int kind, const char **keys, const char **values, int count, GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    int ok = secret_password_clearv_sync(strongroom_standard_schema(kind), attributes, NULL, error);
    g_hash_table_unref(attributes);
    return ok;
}

int strongroom_standard_find(int kind, const char **keys, const char **values, int count, char **secret,
                             char **info, GError **error) {
    *secret = NULL;
    *info = NULL;
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    GList *items = secret_password_searchv_sync(strongroom_standard_schema(kind), attributes,
                                                strongroom_search_unlock | strongroom_search_load_secrets, NULL,
                                                error);
    g_hash_table_unref(attributes);
    if (items == NULL) {
        return 0;
    }
    SecretRetrievable *item = (SecretRetrievable *)items->data;
    SecretValue *value = secret_retrievable_retrieve_secret_sync(item, NULL, error);
    if (value != NULL) {
        const char *text = secret_value_get_text(value);
        *secret = text != NULL ? g_strdup(text) : NULL;
        secret_value_unref(value);
    }
    GHashTable *found = secret_retrievable_get_attributes(item);
    if (found != NULL) {
        const char *text = g_hash_table_lookup(found, "strongroom-info");
        *info = text != NULL ? g_strdup(text) : NULL;
        g_hash_table_unref(found);
    }
    g_list_free_full(items, g_object_unref);
    return *secret != NULL;
}

void strongroom_standard_find_all(int kind, const char **keys, const char **values, int count, char ***secrets,
                                  char ***infos, GError **error) {
    GHashTable *attributes = strongroom_attributes(keys, values, count);
    GList *items = secret_password_searchv_sync(
        strongroom_standard_schema(kind), attributes,
        strongroom_search_all | strongroom_search_unlock | strongroom_search_load_secrets, NULL, error);
    g_hash_table_unref(attributes);
    unsigned int total = g_list_length(items);
    *secrets = g_malloc0_n((unsigned long)total + 1, sizeof(char *));
    *infos = g_malloc0_n((unsigned long)total + 1, sizeof(char *));
    unsigned int index = 0;
    for (GList *node = items; node != NULL; node = node->next) {
        SecretRetrievable *item = (SecretRetrievable *)node->data;
        SecretValue *value = secret_retrievable_retrieve_secret_sync(item, NULL, NULL);
        const char *text = value != NULL ? secret_value_get_text(value) : NULL;
        if (text != NULL) {
            GHashTable *found = secret_retrievable_get_attributes(item);
            const char *info = found != NULL ? g_hash_table_lookup(found, "strongroom-info") : NULL;
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

void strongroom_secret_free_all(char **secrets) {
    if (secrets == NULL) {
        return;
    }
    for (char **cursor = secrets; *cursor != NULL; cursor++) {
        memset(*cursor, 0, strlen(*cursor));
    }
    g_strfreev(secrets);
}

const char *strongroom_error_message(const GError *error) { return error->message; }
