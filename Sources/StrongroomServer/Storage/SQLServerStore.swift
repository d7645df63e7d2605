// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
public import SQLKit
public import StrongroomWire

/// The ``ServerStore`` written once in SQL (SQLKit) for every engine. Each method is one statement, or a
/// statement whose outcome is decided atomically by the database (`RETURNING`, `ON CONFLICT`).
public struct SQLServerStore: ServerStore {
    /// The SQL dialects whose schema differs.
    public enum Engine: Sendable {
        case sqlite
        case postgres
    }

    let database: any SQLDatabase
    let engine: Engine

    /// Wraps a database connection or pool.
    public init(database: any SQLDatabase, engine: Engine) {
        self.database = database
        self.engine = engine
    }

    /// The schema, as numbered steps. A step is never edited once released; changes are new steps.
    var migrations: [(version: Int, statements: [String])] {
        let indexColumn =
            switch engine {
            case .sqlite: "idx INTEGER PRIMARY KEY AUTOINCREMENT"
            case .postgres: "idx BIGSERIAL PRIMARY KEY"
            }
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
        ]
    }

    /// Applies every migration step above the stored schema version, each step in a transaction with its version
    /// bump. On PostgreSQL an advisory lock lets several instances start at once.
    public func migrate() async throws {
        try await database.raw("CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)").run()
        for step in migrations {
            try await database.withSession { session in
                try await session.raw("BEGIN").run()
                do {
                    if engine == .postgres { try await session.raw("SELECT pg_advisory_xact_lock(7470616)").run() }
                    let current =
                        try await session.raw("SELECT MAX(version) AS version FROM schema_version").first()?
                        .decode(column: "version", as: Int?.self) ?? 0
                    guard step.version > current else {
                        try await session.raw("COMMIT").run()
                        return
                    }
                    for statement in step.statements { try await session.raw("\(unsafeRaw: statement)").run() }
                    try await session.raw("INSERT INTO schema_version (version) VALUES (\(bind: step.version))").run()
                    try await session.raw("COMMIT").run()
                } catch {
                    try? await session.raw("ROLLBACK").run()  // the original error is the one to report
                    throw error
                }
            }
        }
    }

    // MARK: Settings and tokens

    public func setting(_ key: String) async throws -> String? {
        try await database.raw("SELECT value FROM settings WHERE key = \(bind: key)").first()?
            .decode(column: "value", as: String.self)
    }

    public func setSettingIfAbsent(_ key: String, value: String) async throws {
        try await database.raw(
            "INSERT INTO settings (key, value) VALUES (\(bind: key), \(bind: value)) ON CONFLICT (key) DO NOTHING"
        ).run()
    }

    public func createRegistrationToken(_ token: StoredRegistrationToken) async throws {
        try await database.raw(
            """
            INSERT INTO registration_tokens (token, name, uses, maximum_uses, enabled)
            VALUES (\(bind: token.token), \(bind: token.name), \(bind: token.uses), \(bind: token.maximumUses),
            \(bind: token.enabled)) ON CONFLICT (token) DO NOTHING
            """
        ).run()
    }

    public func registrationTokens() async throws -> [StoredRegistrationToken] {
        try await database.raw("SELECT * FROM registration_tokens ORDER BY name, token").all().map { row in
            StoredRegistrationToken(
                token: try row.decode(column: "token", as: String.self),
                name: try row.decode(column: "name", as: String.self),
                uses: try row.decode(column: "uses", as: Int.self),
                maximumUses: try row.decode(column: "maximum_uses", as: Int?.self),
                enabled: try row.decode(column: "enabled", as: Bool.self)
            )
        }
    }

    public func useRegistrationToken(_ token: String) async throws -> Bool {
        try await database.raw(
            """
            UPDATE registration_tokens SET uses = uses + 1 WHERE token = \(bind: token) AND enabled = \(bind: true)
            AND (maximum_uses IS NULL OR uses < maximum_uses) RETURNING token
            """
        ).first() != nil
    }

    public func revokeRegistrationToken(_ token: String) async throws -> Bool {
        try await database.raw(
            "UPDATE registration_tokens SET enabled = \(bind: false) WHERE token = \(bind: token) RETURNING token"
        ).first() != nil
    }

    // MARK: Clients

    public func insertClient(_ client: StoredClient) async throws {
        try await database.raw(
            """
            INSERT INTO clients (client_id, name, public_key, signing_key, api_key_id, api_secret_hash, enabled, created,
            registration_token) VALUES (\(bind: client.clientID), \(bind: client.name), \(bind: try json(client.publicKey)),
            \(bind: try client.signingKey.map(json)), \(bind: client.apiKeyID), \(bind: client.apiSecretHash),
            \(bind: client.enabled), \(bind: client.created.microseconds), \(bind: client.registrationToken))
            """
        ).run()
    }

    public func client(id: String) async throws -> StoredClient? {
        try await database.raw("SELECT * FROM clients WHERE client_id = \(bind: id)").first().map(decodeClient)
    }

    public func client(apiKeyID: String) async throws -> StoredClient? {
        try await database.raw("SELECT * FROM clients WHERE api_key_id = \(bind: apiKeyID)").first().map(decodeClient)
    }

    public func clientNames(ids: [String]) async throws -> [String: String] {
        guard !ids.isEmpty else { return [:] }
        let rows = try await database.raw(
            "SELECT client_id, name FROM clients WHERE client_id IN (\(binds: ids.map { $0 as any Encodable & Sendable }))"
        ).all()
        var names: [String: String] = [:]
        for row in rows {
            names[try row.decode(column: "client_id", as: String.self)] = try row.decode(
                column: "name",
                as: String.self
            )
        }
        return names
    }

    private func decodeClient(_ row: any SQLRow) throws -> StoredClient {
        StoredClient(
            clientID: try row.decode(column: "client_id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            publicKey: try decodeJSON(PublicKeyObject.self, try row.decode(column: "public_key", as: String.self)),
            signingKey: try row.decode(column: "signing_key", as: String?.self).map {
                try decodeJSON(SigningKeyObject.self, $0)
            },
            apiKeyID: try row.decode(column: "api_key_id", as: String.self),
            apiSecretHash: try row.decode(column: "api_secret_hash", as: String.self),
            enabled: try row.decode(column: "enabled", as: Bool.self),
            created: Timestamp(microseconds: try row.decode(column: "created", as: Int64.self)),
            registrationToken: try row.decode(column: "registration_token", as: String?.self)
        )
    }

    // MARK: TSV1 nonces

    public func rememberNonce(publicKey: String, nonce: String, timestamp: Int64) async throws -> Bool {
        try await database.raw(
            """
            INSERT INTO tsv1_nonces (public_key, nonce, seen_at) VALUES (\(bind: publicKey), \(bind: nonce),
            \(bind: timestamp)) ON CONFLICT (public_key, nonce) DO NOTHING RETURNING nonce
            """
        ).first() != nil
    }

    public func forgetNonces(olderThan timestamp: Int64) async throws {
        try await database.raw("DELETE FROM tsv1_nonces WHERE seen_at < \(bind: timestamp)").run()
    }

    // MARK: Access keys

    public func accessKey(
        writerID: String,
        userID: String,
        readerID: String,
        type: String
    ) async throws
        -> StoredAccessKey?
    {
        try await database.raw(
            """
            SELECT * FROM access_keys WHERE writer_id = \(bind: writerID) AND user_id = \(bind: userID)
            AND reader_id = \(bind: readerID) AND type = \(bind: type)
            """
        ).first().map { row in
            StoredAccessKey(
                writerID: try row.decode(column: "writer_id", as: String.self),
                userID: try row.decode(column: "user_id", as: String.self),
                readerID: try row.decode(column: "reader_id", as: String.self),
                type: try row.decode(column: "type", as: String.self),
                eak: try row.decode(column: "eak", as: String.self),
                authorizerID: try row.decode(column: "authorizer_id", as: String.self)
            )
        }
    }

    public func insertAccessKey(_ key: StoredAccessKey) async throws -> Bool {
        try await database.raw(
            """
            INSERT INTO access_keys (writer_id, user_id, reader_id, type, eak, authorizer_id)
            VALUES (\(bind: key.writerID), \(bind: key.userID), \(bind: key.readerID), \(bind: key.type),
            \(bind: key.eak), \(bind: key.authorizerID))
            ON CONFLICT (writer_id, user_id, reader_id, type) DO NOTHING RETURNING eak
            """
        ).first() != nil
    }

    public func deleteAccessKey(writerID: String, userID: String, readerID: String, type: String) async throws {
        try await database.raw(
            """
            DELETE FROM access_keys WHERE writer_id = \(bind: writerID) AND user_id = \(bind: userID)
            AND reader_id = \(bind: readerID) AND type = \(bind: type)
            """
        ).run()
    }

    // MARK: Policies

    public func policy(userID: String, writerID: String, readerID: String, type: String) async throws -> StoredPolicy? {
        try await database.raw(
            """
            SELECT * FROM policies WHERE user_id = \(bind: userID) AND writer_id = \(bind: writerID)
            AND reader_id = \(bind: readerID) AND type = \(bind: type)
            """
        ).first().map(decodePolicy)
    }

    public func savePolicy(_ policy: StoredPolicy) async throws {
        try await database.raw(
            """
            INSERT INTO policies (user_id, writer_id, reader_id, type, can_read, is_authorizer, authorized_by,
            read_granted_by) VALUES (\(bind: policy.userID), \(bind: policy.writerID), \(bind: policy.readerID),
            \(bind: policy.type), \(bind: policy.canRead), \(bind: policy.isAuthorizer), \(bind: policy.authorizedBy),
            \(bind: policy.readGrantedBy))
            ON CONFLICT (user_id, writer_id, reader_id, type) DO UPDATE SET can_read = excluded.can_read,
            is_authorizer = excluded.is_authorizer, authorized_by = excluded.authorized_by,
            read_granted_by = excluded.read_granted_by
            """
        ).run()
    }

    public func clearAuthorizer(userID: String, writerID: String, readerID: String) async throws {
        try await database.withSession { session in
            try await session.raw("BEGIN").run()
            do {
                try await session.raw(
                    """
                    UPDATE policies SET is_authorizer = \(bind: false), authorized_by = NULL
                    WHERE user_id = \(bind: userID) AND writer_id = \(bind: writerID) AND reader_id = \(bind: readerID)
                    """
                ).run()
                // Reads the authorizer granted itself go with it.
                try await session.raw(
                    """
                    UPDATE policies SET can_read = \(bind: false), read_granted_by = NULL
                    WHERE user_id = \(bind: userID) AND writer_id = \(bind: writerID) AND reader_id = \(bind: readerID)
                    AND read_granted_by = \(bind: readerID)
                    """
                ).run()
                try await session.raw("COMMIT").run()
            } catch {
                try? await session.raw("ROLLBACK").run()  // the original error is the one to report
                throw error
            }
        }
    }

    public func readPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await database.raw(
            """
            SELECT * FROM policies WHERE writer_id = \(bind: writerID) AND can_read = \(bind: true)
            ORDER BY reader_id, type LIMIT \(bind: page.limit) OFFSET \(bind: page.offset)
            """
        ).all().map(decodePolicy)
    }

    public func readPolicies(readerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await database.raw(
            """
            SELECT * FROM policies WHERE reader_id = \(bind: readerID) AND can_read = \(bind: true)
            ORDER BY writer_id, type LIMIT \(bind: page.limit) OFFSET \(bind: page.offset)
            """
        ).all().map(decodePolicy)
    }

    public func authorizerPolicies(writerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await database.raw(
            """
            SELECT * FROM policies WHERE writer_id = \(bind: writerID) AND is_authorizer = \(bind: true)
            ORDER BY reader_id, type LIMIT \(bind: page.limit) OFFSET \(bind: page.offset)
            """
        ).all().map(decodePolicy)
    }

    public func authorizerPolicies(authorizerID: String, page: ListingPage) async throws -> [StoredPolicy] {
        try await database.raw(
            """
            SELECT * FROM policies WHERE reader_id = \(bind: authorizerID) AND is_authorizer = \(bind: true)
            ORDER BY writer_id, type LIMIT \(bind: page.limit) OFFSET \(bind: page.offset)
            """
        ).all().map(decodePolicy)
    }

    private func decodePolicy(_ row: any SQLRow) throws -> StoredPolicy {
        StoredPolicy(
            userID: try row.decode(column: "user_id", as: String.self),
            writerID: try row.decode(column: "writer_id", as: String.self),
            readerID: try row.decode(column: "reader_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            canRead: try row.decode(column: "can_read", as: Bool.self),
            isAuthorizer: try row.decode(column: "is_authorizer", as: Bool.self),
            authorizedBy: try row.decode(column: "authorized_by", as: String?.self),
            readGrantedBy: try row.decode(column: "read_granted_by", as: String?.self)
        )
    }

    // MARK: Records

    public func insertRecord(_ record: StoredRecord) async throws -> StoredRecord {
        let row = try await database.raw(
            """
            INSERT INTO records (record_id, writer_id, user_id, type, plain, data, rec_sig, created, last_modified,
            version, file_meta, pending) VALUES (\(bind: record.recordID), \(bind: record.writerID),
            \(bind: record.userID), \(bind: record.type), \(bind: try json(record.plain)), \(bind: try json(record.data)),
            \(bind: record.recordSignature), \(bind: record.created.microseconds),
            \(bind: record.lastModified.microseconds), \(bind: record.version), \(bind: try record.fileMeta.map(json)),
            \(bind: record.isPending)) RETURNING idx
            """
        ).first()
        var stored = record
        stored.index = try row?.decode(column: "idx", as: Int64.self) ?? 0
        return stored
    }

    public func record(id: String) async throws -> StoredRecord? {
        try await database.raw("SELECT * FROM records WHERE record_id = \(bind: id)").first().map {
            try decodeRecord($0)
        }
    }

    public func updateRecord(
        id: String,
        expectedVersion: String,
        newVersion: String,
        plain: [String: String],
        data: [String: String],
        recordSignature: String?,
        lastModified: Timestamp
    ) async throws -> VersionedOutcome<StoredRecord> {
        let updated = try await database.raw(
            """
            UPDATE records SET plain = \(bind: try json(plain)), data = \(bind: try json(data)),
            rec_sig = \(bind: recordSignature), version = \(bind: newVersion),
            last_modified = \(bind: lastModified.microseconds)
            WHERE record_id = \(bind: id) AND version = \(bind: expectedVersion) RETURNING *
            """
        ).first()
        if let updated { return .done(try decodeRecord(updated)) }
        return try await record(id: id) == nil ? .notFound : .conflict
    }

    public func commitFile(id: String, lastModified: Timestamp) async throws -> StoredRecord? {
        try await database.raw(
            """
            UPDATE records SET pending = \(bind: false), last_modified = \(bind: lastModified.microseconds)
            WHERE record_id = \(bind: id) AND pending = \(bind: true) RETURNING *
            """
        ).first().map { try decodeRecord($0) }
    }

    public func deletePendingFiles(createdBefore time: Timestamp) async throws -> [String] {
        try await database.raw(
            """
            DELETE FROM records WHERE pending = \(bind: true) AND created < \(bind: time.microseconds)
            RETURNING record_id
            """
        ).all().map { try $0.decode(column: "record_id", as: String.self) }
    }

    public func deleteRecord(id: String, expectedVersion: String) async throws -> VersionedOutcome<Void> {
        let deleted = try await database.raw(
            "DELETE FROM records WHERE record_id = \(bind: id) AND version = \(bind: expectedVersion) RETURNING record_id"
        ).first()
        if deleted != nil { return .done(()) }
        return try await record(id: id) == nil ? .notFound : .conflict
    }

    /// The columns of a metadata-only read: `data` and `rec_sig` are left out and their size is read instead.
    private static let metadataColumns = """
        r.idx, r.record_id, r.writer_id, r.user_id, r.type, r.plain, r.created, r.last_modified, r.version,
        r.file_meta, r.pending, CAST(octet_length(r.data) + COALESCE(octet_length(r.rec_sig), 0) AS BIGINT) AS data_size
        """

    public func records(matching query: RecordQuery) async throws -> [StoredRecord] {
        let columns = query.includesData ? "r.*" : Self.metadataColumns
        var sql: SQLQueryString =
            "SELECT \(unsafeRaw: columns) FROM records r WHERE r.idx > \(bind: query.afterIndex) AND r.pending = \(bind: false)"
        func list(_ values: [String]) -> [any Encodable & Sendable] { values.map { $0 as any Encodable & Sendable } }
        if !query.writerIDs.isEmpty { sql += " AND r.writer_id IN (\(binds: list(query.writerIDs)))" }
        if !query.userIDs.isEmpty { sql += " AND r.user_id IN (\(binds: list(query.userIDs)))" }
        if !query.recordIDs.isEmpty { sql += " AND r.record_id IN (\(binds: list(query.recordIDs)))" }
        if !query.types.isEmpty { sql += " AND r.type IN (\(binds: list(query.types)))" }
        switch query.scope {
        case .writtenBy(let caller):
            sql += " AND r.writer_id = \(bind: caller)"
        case .readableBy(let caller):
            sql += """
                 AND (r.writer_id = \(bind: caller) OR r.user_id = \(bind: caller) OR EXISTS (SELECT 1 FROM policies p
                WHERE p.user_id = r.user_id AND p.writer_id = r.writer_id AND p.reader_id = \(bind: caller)
                AND p.type = r.type AND p.can_read = \(bind: true)))
                """
        }
        sql += " ORDER BY r.idx LIMIT \(bind: query.limit)"
        let rows = try await database.raw(sql).all()
        return try rows.map { try decodeRecord($0, includesData: query.includesData) }
    }

    public func records(ids: [String]) async throws -> [StoredRecord] {
        guard !ids.isEmpty else { return [] }
        let list = ids.map { $0 as any Encodable & Sendable }
        return try await database.raw(
            "SELECT * FROM records WHERE record_id IN (\(binds: list)) AND pending = \(bind: false)"
        ).all().map { try decodeRecord($0) }
    }

    /// A full row, or (`includesData: false`) a metadata-only row from ``metadataColumns``.
    private func decodeRecord(_ row: any SQLRow, includesData: Bool = true) throws -> StoredRecord {
        StoredRecord(
            index: try row.decode(column: "idx", as: Int64.self),
            recordID: try row.decode(column: "record_id", as: String.self),
            writerID: try row.decode(column: "writer_id", as: String.self),
            userID: try row.decode(column: "user_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            plain: try decodeJSON([String: String].self, try row.decode(column: "plain", as: String.self)),
            data: includesData
                ? try decodeJSON([String: String].self, try row.decode(column: "data", as: String.self)) : [:],
            recordSignature: includesData ? try row.decode(column: "rec_sig", as: String?.self) : nil,
            created: Timestamp(microseconds: try row.decode(column: "created", as: Int64.self)),
            lastModified: Timestamp(microseconds: try row.decode(column: "last_modified", as: Int64.self)),
            version: try row.decode(column: "version", as: String.self),
            fileMeta: try row.decode(column: "file_meta", as: String?.self).map { try decodeJSON(FileMeta.self, $0) },
            isPending: try row.decode(column: "pending", as: Bool.self),
            dataSize: includesData ? 0 : Int(clamping: try row.decode(column: "data_size", as: Int64.self))
        )
    }

    // MARK: JSON columns

    private func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private func decodeJSON<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(text.utf8))
    }

    // MARK: Notes

    public func insertNote(_ note: StoredNote, quota: NoteQuota) async throws -> NoteInsertion {
        // Expired notes are gone for readers already; delete them so that they count against no quota.
        try await database.raw("DELETE FROM notes WHERE expires_at <= \(bind: note.created.microseconds)").run()
        // One statement: the quotas are checked and the note inserted atomically.
        let inserted = try await database.raw(
            """
            INSERT INTO notes (note_id, id_string, body, created, views, max_views, expires_at, recipient_signing_key,
            writer_signing_key) SELECT \(bind: note.noteID), \(bind: note.idString), \(bind: try json(note.body)),
            \(bind: note.created.microseconds), \(bind: note.views), \(bind: note.maximumViews),
            \(bind: note.expiresAt?.microseconds), \(bind: note.recipientSigningKey), \(bind: note.writerSigningKey)
            WHERE (SELECT COUNT(*) FROM notes WHERE writer_signing_key = \(bind: note.writerSigningKey))
            < \(bind: quota.perKey) AND (SELECT COUNT(*) FROM notes) < \(bind: quota.total)
            ON CONFLICT DO NOTHING RETURNING note_id
            """
        ).first()
        if inserted != nil { return .inserted }
        if let name = note.idString,
            try await database.raw("SELECT note_id FROM notes WHERE id_string = \(bind: name)").first() != nil
        {
            return .nameTaken
        }
        return .quotaExceeded
    }

    public func viewNote(
        id: String?,
        idString: String?,
        recipientSigningKey: String,
        now: Timestamp
    ) async throws -> StoredNote? {
        // One statement counts the view and refuses exhausted or expired notes.
        var sql: SQLQueryString = "UPDATE notes SET views = views + 1 WHERE "
        if let id { sql += "note_id = \(bind: id)" } else { sql += "id_string = \(bind: idString ?? "")" }
        sql += """
             AND recipient_signing_key = \(bind: recipientSigningKey) AND (max_views < 1 OR views < max_views)
            AND (expires_at IS NULL OR expires_at > \(bind: now.microseconds)) RETURNING *
            """
        let note = try await database.raw(sql).first().map { row in
            StoredNote(
                noteID: try row.decode(column: "note_id", as: String.self),
                idString: try row.decode(column: "id_string", as: String?.self),
                body: try decodeJSON([String: JSONValue].self, try row.decode(column: "body", as: String.self)),
                created: Timestamp(microseconds: try row.decode(column: "created", as: Int64.self)),
                views: try row.decode(column: "views", as: Int64.self),
                maximumViews: try row.decode(column: "max_views", as: Int64.self),
                expiresAt: try row.decode(column: "expires_at", as: Int64?.self).map(Timestamp.init(microseconds:)),
                recipientSigningKey: try row.decode(column: "recipient_signing_key", as: String.self),
                writerSigningKey: try row.decode(column: "writer_signing_key", as: String?.self) ?? ""
            )
        }
        if let note, note.maximumViews > 0, note.views >= note.maximumViews {
            // That was the last view: nothing is kept for a note nobody can read any more.
            try await database.raw("DELETE FROM notes WHERE note_id = \(bind: note.noteID)").run()
        }
        return note
    }
}
