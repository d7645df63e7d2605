// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomWire

/// The schema and its numbered migration steps.
extension SQLServerStore {
    /// The schema, as numbered steps. A step is never edited once released; changes are new steps.
    var migrations: [(version: Int, statements: [String])] {
        let indexColumn =
            switch engine {
            case .sqlite: "idx INTEGER PRIMARY KEY AUTOINCREMENT"
            case .postgres: "idx BIGSERIAL PRIMARY KEY"
            }
        // The document tag of the revision records stored before step 13, from their plain meta (written by
        // `encodeStringMap`: keys sorted, no spaces; a tag is base64url, so it has no escapes).
        let documentTagBackfill =
            switch engine {
            case .sqlite:
                #"UPDATE records SET sync_doc = json_extract(plain, '$."sr.d"') WHERE sync_tag IS NOT NULL"#
            case .postgres:
                #"""
                UPDATE records SET sync_doc = substring(plain from '"sr\.d":"([A-Za-z0-9_-]{1,86})"')
                WHERE sync_tag IS NOT NULL
                """#
            }
        let bytes = engine == .postgres ? "BYTEA" : "BLOB"
        return [
            (
                1,
                [
                    "CREATE TABLE settings (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
                    """
                    CREATE TABLE registration_tokens (token TEXT PRIMARY KEY, name TEXT NOT NULL,
                    uses BIGINT NOT NULL DEFAULT 0, maximum_uses BIGINT, enabled BOOLEAN NOT NULL)
                    """,
                    """
                    CREATE TABLE clients (client_id TEXT PRIMARY KEY, name TEXT NOT NULL,
                    public_key TEXT NOT NULL, signing_key TEXT, api_key_id TEXT NOT NULL UNIQUE,
                    api_secret_hash TEXT NOT NULL, enabled BOOLEAN NOT NULL, created BIGINT NOT NULL,
                    registration_token TEXT)
                    """,
                    """
                    CREATE TABLE records (\(indexColumn), record_id TEXT NOT NULL UNIQUE,
                    writer_id TEXT NOT NULL, user_id TEXT NOT NULL, type TEXT NOT NULL, plain TEXT NOT NULL,
                    data TEXT NOT NULL, rec_sig TEXT, created BIGINT NOT NULL, last_modified BIGINT NOT NULL,
                    version TEXT NOT NULL, file_meta TEXT, pending BOOLEAN NOT NULL)
                    """,
                    "CREATE INDEX records_writer ON records (writer_id, idx)",
                    """
                    CREATE TABLE access_keys (writer_id TEXT NOT NULL, user_id TEXT NOT NULL,
                    reader_id TEXT NOT NULL, type TEXT NOT NULL, eak TEXT NOT NULL, authorizer_id TEXT NOT NULL,
                    PRIMARY KEY (writer_id, user_id, reader_id, type))
                    """,
                    """
                    CREATE TABLE policies (user_id TEXT NOT NULL, writer_id TEXT NOT NULL,
                    reader_id TEXT NOT NULL, type TEXT NOT NULL, can_read BOOLEAN NOT NULL,
                    is_authorizer BOOLEAN NOT NULL, authorized_by TEXT,
                    PRIMARY KEY (user_id, writer_id, reader_id, type))
                    """,
                    "CREATE INDEX policies_reader ON policies (reader_id)",
                    """
                    CREATE TABLE tsv1_nonces (public_key TEXT NOT NULL, nonce TEXT NOT NULL,
                    seen_at BIGINT NOT NULL, PRIMARY KEY (public_key, nonce))
                    """,
                ]
            ),
            (
                2,
                [
                    """
                    CREATE TABLE notes (note_id TEXT PRIMARY KEY, id_string TEXT UNIQUE, body TEXT NOT NULL,
                    created BIGINT NOT NULL, views BIGINT NOT NULL, max_views BIGINT NOT NULL,
                    expires_at BIGINT, recipient_signing_key TEXT NOT NULL)
                    """
                ]
            ),
            (
                3,
                [
                    // Who granted a read (an authorizer's grants go when the authorizer is removed).
                    "ALTER TABLE policies ADD COLUMN read_granted_by TEXT",
                    // Per-key note quotas and the clean-up of expired notes.
                    "ALTER TABLE notes ADD COLUMN writer_signing_key TEXT",
                    "CREATE INDEX notes_writer ON notes (writer_signing_key)",
                    "CREATE INDEX notes_expiry ON notes (expires_at)",
                    // Pending files past their lifetime are found without a scan.
                    "CREATE INDEX records_pending ON records (pending, created)",
                ]
            ),
            (
                4,
                [
                    // Client certificates issued by the server's CA (enrollment, renewal, revocation).
                    """
                    CREATE TABLE client_certificates (serial TEXT PRIMARY KEY, client_id TEXT NOT NULL,
                    not_before BIGINT NOT NULL, not_after BIGINT NOT NULL, issued BIGINT NOT NULL,
                    fingerprint TEXT NOT NULL, revoked_at BIGINT, revocation_reason TEXT)
                    """,
                    "CREATE INDEX client_certificates_client ON client_certificates (client_id, issued)",
                    "CREATE INDEX client_certificates_revoked ON client_certificates (revoked_at)",
                ]
            ),
            (
                5,
                [
                    // Integrity check-in: app instances, single-use challenges, and every report received.
                    """
                    CREATE TABLE integrity_instances (instance_id TEXT PRIMARY KEY, client_id TEXT NOT NULL,
                    public_key TEXT NOT NULL, name TEXT NOT NULL, registered BIGINT NOT NULL)
                    """,
                    "CREATE INDEX integrity_instances_client ON integrity_instances (client_id)",
                    """
                    CREATE TABLE integrity_challenges (nonce TEXT PRIMARY KEY, client_id TEXT NOT NULL,
                    expires BIGINT NOT NULL)
                    """,
                    "CREATE INDEX integrity_challenges_expiry ON integrity_challenges (expires)",
                    """
                    CREATE TABLE integrity_reports (\(indexColumn), client_id TEXT NOT NULL,
                    instance_id TEXT NOT NULL, received BIGINT NOT NULL, checked BIGINT NOT NULL,
                    verdict TEXT NOT NULL, findings TEXT NOT NULL, report TEXT NOT NULL)
                    """,
                    "CREATE INDEX integrity_reports_client ON integrity_reports (client_id, idx)",
                ]
            ),
            (
                6,
                [
                    // Challenges in issue order, so a client keeps its newest ones (they live five minutes: the
                    // old table's outstanding challenges are simply dropped).
                    "DROP TABLE integrity_challenges",
                    """
                    CREATE TABLE integrity_challenges (\(indexColumn), nonce TEXT NOT NULL UNIQUE,
                    client_id TEXT NOT NULL, expires BIGINT NOT NULL)
                    """,
                    "CREATE INDEX integrity_challenges_client ON integrity_challenges (client_id, idx)",
                    "CREATE INDEX integrity_challenges_expiry ON integrity_challenges (expires)",
                ]
            ),
            (
                7,
                [
                    // File bodies in the database (`--blob-store database`): one row per upload attempt, its
                    // ciphertext in numbered chunks. Only a complete upload is ever read.
                    """
                    CREATE TABLE blob_uploads (upload_id TEXT PRIMARY KEY, blob_id TEXT NOT NULL,
                    started BIGINT NOT NULL, size BIGINT, checksum TEXT, complete BOOLEAN NOT NULL)
                    """,
                    "CREATE INDEX blob_uploads_blob ON blob_uploads (blob_id, complete)",
                    "CREATE INDEX blob_uploads_started ON blob_uploads (complete, started)",
                    """
                    CREATE TABLE blob_chunks (upload_id TEXT NOT NULL, seq BIGINT NOT NULL,
                    data \(engine == .postgres ? "BYTEA" : "BLOB") NOT NULL, PRIMARY KEY (upload_id, seq))
                    """,
                ]
                    + (engine == .postgres
                        // Ciphertext does not compress: store it out of line without trying.
                        ? ["ALTER TABLE blob_chunks ALTER COLUMN data SET STORAGE EXTERNAL"] : [])
            ),
            (
                8,
                [
                    // Failed credential attempts per source address in one-minute windows, counted for the whole
                    // deployment when several instances share the database.
                    """
                    CREATE TABLE auth_failures (source TEXT PRIMARY KEY, window_start BIGINT NOT NULL,
                    failures BIGINT NOT NULL)
                    """,
                    "CREATE INDEX auth_failures_window ON auth_failures (window_start)",
                ]
            ),
            (
                9,
                [
                    // Each instance's newest verdict, so the refusal is decided per client over all its instances
                    // (a new instance with a clean report no longer lifts another's).
                    "ALTER TABLE integrity_instances ADD COLUMN verdict TEXT",
                    """
                    UPDATE integrity_instances SET verdict = (SELECT r.verdict FROM integrity_reports r
                    WHERE r.instance_id = integrity_instances.instance_id ORDER BY r.idx DESC LIMIT 1)
                    """,
                    // A compromised verdict holds the client until an administrator clears it.
                    "CREATE TABLE integrity_holds (client_id TEXT PRIMARY KEY, since BIGINT NOT NULL)",
                    """
                    INSERT INTO integrity_holds (client_id, since) SELECT client_id, MAX(received)
                    FROM integrity_reports WHERE verdict = 'compromised' GROUP BY client_id
                    """,
                    // Notes' sizes, for the byte quotas per writer key and in all.
                    "ALTER TABLE notes ADD COLUMN size BIGINT NOT NULL DEFAULT 0",
                    "UPDATE notes SET size = LENGTH(body)",
                ]
            ),
            (
                10,
                [
                    // Replication (`/v2/sync/…`): a revision record's blind tag, unique per writer and type, so a
                    // retried bulk write stores nothing twice. Other records leave it NULL.
                    "ALTER TABLE records ADD COLUMN sync_tag TEXT",
                    """
                    CREATE UNIQUE INDEX records_sync_tag ON records (writer_id, type, sync_tag)
                    WHERE sync_tag IS NOT NULL
                    """,
                ]
            ),
            (
                11,
                [
                    // Search by type pages in record order through an index (a pull reads a whole type a page at
                    // a time: without it each page walked every record, O(n²) in all), and revs_diff finds each
                    // tag through one, whoever wrote it.
                    "CREATE INDEX records_type ON records (type, idx)",
                    "CREATE INDEX records_type_tag ON records (type, sync_tag) WHERE sync_tag IS NOT NULL",
                ]
            ),
            (
                12,
                [
                    // Shared datastores: who owns a replicated type (the first to set a member's access) and what
                    // each member may write to it, so a revoked or read-only member's writes are refused at once.
                    """
                    CREATE TABLE sync_access (type TEXT NOT NULL, client_id TEXT NOT NULL, access TEXT NOT NULL,
                    PRIMARY KEY (type, client_id))
                    """,
                    // One owner per type, even when two first claims race on PostgreSQL.
                    "CREATE UNIQUE INDEX sync_access_owner ON sync_access (type) WHERE access = 'owner'",
                ]
            ),
            (
                13,
                [
                    // Replication's caps: a revision record's document tag (`sr.d`), so the revisions one writer
                    // keeps of one document are counted through an index; the records one writer keeps of a type
                    // (every kind, not only revisions); the attachment bytes of a type.
                    "ALTER TABLE records ADD COLUMN sync_doc TEXT",
                    documentTagBackfill,
                    """
                    CREATE INDEX records_sync_doc ON records (writer_id, type, sync_doc)
                    WHERE sync_doc IS NOT NULL
                    """,
                    "CREATE INDEX records_writer_type ON records (writer_id, type)",
                    "CREATE INDEX records_type_files ON records (type) WHERE file_meta IS NOT NULL",
                ]
            ),
            (
                14,
                [
                    // The key log (`/v2/keylog/…`): one row per leaf, its index dense from 0. `entry` is the
                    // leaf's fixed-layout bytes; `client_id` and `kind` find a client's key leaves. A commitment's
                    // salt and what it commits to (`party`, `user_id`, `type`) stay here, for the parties only.
                    """
                    CREATE TABLE keylog (idx BIGINT PRIMARY KEY, entry \(bytes) NOT NULL, client_id TEXT NOT NULL,
                    kind INTEGER NOT NULL, salt \(bytes), party TEXT, user_id TEXT, type TEXT)
                    """,
                    "CREATE INDEX keylog_client ON keylog (client_id, kind, idx)",
                    "CREATE INDEX keylog_party ON keylog (party, idx) WHERE party IS NOT NULL",
                ]
            ),
            (15, attachmentBytesStep),
            (16, committedAttachmentBytesStep),
            (
                17,
                [
                    // An anonymous note's source (an IPv4 address, an IPv6 /64), for its per-source quota and the
                    // anonymous notes' share of the server's; NULL for registered clients' notes.
                    "ALTER TABLE notes ADD COLUMN source TEXT",
                    "CREATE INDEX notes_source ON notes (source) WHERE source IS NOT NULL",
                ]
            ),
            (
                18,
                [
                    // A type's access-key generation (docs/design/Revocation.md): no row is generation 1, a type
                    // never rotated. A rotation sets it in the transaction that replaces the EAKs.
                    """
                    CREATE TABLE access_key_generations (writer_id TEXT NOT NULL, user_id TEXT NOT NULL,
                    type TEXT NOT NULL, generation BIGINT NOT NULL, PRIMARY KEY (writer_id, user_id, type))
                    """
                ]
            ),
            (
                19,
                [
                    // The link from each generation to the one before it: the previous key sealed under the new
                    // one, stored by the rotation, so an interrupted re-wrap resumes (docs/design/Revocation.md).
                    """
                    CREATE TABLE access_key_links (writer_id TEXT NOT NULL, user_id TEXT NOT NULL,
                    type TEXT NOT NULL, generation BIGINT NOT NULL, previous TEXT NOT NULL,
                    PRIMARY KEY (writer_id, user_id, type, generation))
                    """
                ]
            ),
            (
                20,
                [
                    // Client key changes (docs/design/KeyLog.md): when a client last replaced its keys (tokens issued
                    // before are refused), the key that sealed an EAK once its authorizer replaced its keys (NULL:
                    // the authorizer's current key), and a key change leaf's two signatures (old ‖ new, 128 bytes).
                    "ALTER TABLE clients ADD COLUMN keys_changed BIGINT",
                    "ALTER TABLE access_keys ADD COLUMN authorizer_key TEXT",
                    "ALTER TABLE keylog ADD COLUMN signatures \(bytes)",
                    "CREATE INDEX access_keys_reader ON access_keys (reader_id, writer_id, user_id, type)",
                    "CREATE INDEX access_keys_authorizer ON access_keys (authorizer_id)",
                ]
            ),
            (
                21,
                [
                    // A client's post-quantum (X-Wing) public key, base64url (docs/design/PostQuantum.md); its
                    // signature stays with its key log leaf (`keylog.signatures`).
                    "ALTER TABLE clients ADD COLUMN hybrid_key TEXT"
                ]
            ),
            (
                22,
                [
                    // An access key's post-quantum wrap beside its EAK (docs/design/PostQuantum.md): X-Wing HPKE
                    // signed by the authorizer, base64url; NULL when none was stored. A type sealed post-quantum
                    // only keeps an empty `eak`.
                    "ALTER TABLE access_keys ADD COLUMN hybrid_eak TEXT"
                ]
            ),
            (
                23,
                [
                    // A file re-wrapped by a rotation (docs/design/Revocation.md, "Files"): the 100-byte prologue
                    // (`3.EDK.EDKN.`) served in place of the stored body's first 100 bytes; NULL for a file served as
                    // it was uploaded. The body itself is never rewritten.
                    "ALTER TABLE records ADD COLUMN file_prologue TEXT"
                ]
            ),
        ]
    }

    /// Whether the database answers and its schema is the one this build expects (`GET /ready`). Throws when the
    /// database cannot be reached.
    package func isSchemaCurrent() async throws -> Bool {
        try await Self.schemaVersion(in: database) == migrations.last?.version
    }

    /// Applies every migration step above the stored schema version, each step in a transaction with its version
    /// bump. On PostgreSQL an advisory lock lets several instances start at once.
    package func migrate() async throws {
        try await database.raw("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)").run()
        for step in migrations {
            try await database.transaction { [engine] session in
                if engine == .postgres { try await session.raw("SELECT pg_advisory_xact_lock(7470616)").run() }
                guard step.version > (try await Self.schemaVersion(in: session)) else { return }
                for statement in step.statements { try await session.raw("\(unsafeRaw: statement)").run() }
                try await session.raw("INSERT INTO schema_version (version) VALUES (\(bind: step.version))").run()
            }
        }
    }

    /// The stored schema version (0 before the first step).
    private static func schemaVersion(in database: any SQLDatabase) async throws -> Int {
        try await database.raw("SELECT MAX(version) AS version FROM schema_version").first()?
            .decode(column: "version", as: Int?.self) ?? 0
    }
}
