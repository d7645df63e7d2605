// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomCrypto
import StrongroomSQLite

extension Datastore {
    /// Removes the bodies and attachments of revisions that are no longer leaves (CDTDatastore's
    /// `compactWithError:`) and attachment files nothing refers to (including a crashed write's), then rebuilds
    /// the file so the freed pages are gone and truncates the WAL. Revision IDs and the tree stay, so
    /// history and replication still work. Returns how many bodies were removed.
    @discardableResult
    public func compact() async throws(DatastoreError) -> Int {
        let folder = attachmentFolder
        let removed = try await write { store throws(DatastoreError) in
            let removed = try store.sql { () throws(SQLiteError) in try store.compactBodies() }
            try store.sql { () throws(SQLiteError) in try store.compactAttachments() }
            let referenced = try store.sql { () throws(SQLiteError) in try store.referencedAttachmentFiles() }
            Datastore.sweepAttachmentFiles(in: folder, keeping: referenced)
            return removed
        }
        try await withConnection { connection throws(DatastoreError) in
            try RevisionStore(connection: connection, limits: .default).sql { () throws(SQLiteError) in
                try connection.execute("VACUUM")
                try connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }
        return removed
    }

    /// Re-encrypts the whole database under the key `provider` supplies, in place (SQLCipher's rekey), in one
    /// transaction: a crash at any point leaves a datastore that opens with the old key or the new one.
    ///
    /// Make sure the provider has stored the new key durably before calling this (``KeychainKeyProvider`` does so
    /// when it first hands out a key); from the moment this returns, only the new key opens the datastore. Other
    /// values open on the same datastore must be closed first.
    ///
    /// - Throws: ``DatastoreError/Code/notEncrypted`` for an unencrypted datastore (it is not converted);
    ///   ``DatastoreError/Code/keyRequired`` when the provider has no key; ``DatastoreError/Code/busy``;
    ///   ``DatastoreError/Code/storage``.
    public func rekey(to provider: any EncryptionKeyProvider) async throws(DatastoreError) {
        guard isEncrypted else {
            throw DatastoreError(.notEncrypted, "an unencrypted datastore is not converted by rekey")
        }
        let databaseKey = try await DatastoreManager.databaseKey(from: provider)
        // SQLCipher 4 rewrites the pages in place; in WAL mode a crash while the rekeyed frames are checkpointed can
        // leave pages under both keys. With a rollback journal the rewrite is SQLite's ordinary atomic commit: the
        // journal keeps each original page as it was on disk (under the old key), and the next open plays it back
        // whatever key it holds. So: leave WAL mode (which checkpoints and needs this to be the only connection),
        // rekey, return to WAL.
        try await withConnection { connection throws(DatastoreError) in
            try RevisionStore(connection: connection, limits: .default).sql { () throws(SQLiteError) in
                guard try connection.scalarText("PRAGMA journal_mode = DELETE")?.lowercased() == "delete" else {
                    throw SQLiteError(.busy, "another connection has the datastore open; close it first")
                }
                try connection.rekey(to: databaseKey)
                try connection.execute("PRAGMA journal_mode = WAL")
            }
        }
    }

    /// SQLCipher's `PRAGMA cipher_integrity_check` (encrypted) and SQLite's `PRAGMA integrity_check`: the problems
    /// found, empty when every page authenticates and the structure is sound.
    ///
    /// It checkpoints the WAL first: `cipher_integrity_check` reads the database file's pages, and after a crash
    /// during a checkpoint the file may still hold pages that only the WAL supersedes.
    ///
    /// - Throws: ``DatastoreError/Code/busy`` when another connection keeps the WAL from being checkpointed.
    public func integrityCheck() async throws(DatastoreError) -> [String] {
        let isEncrypted = isEncrypted
        return try await withConnection { connection throws(DatastoreError) in
            let store = RevisionStore(connection: connection, limits: .default)
            let blocked = try store.sql { () throws(SQLiteError) in
                try connection.scalarText("PRAGMA wal_checkpoint(TRUNCATE)") == "1"
            }
            if blocked { throw DatastoreError(.busy, "another connection keeps the WAL from being checkpointed") }
            return try store.sql { () throws(SQLiteError) in
                var problems: [String] = []
                if isEncrypted {
                    let cipher = try connection.prepare("PRAGMA cipher_integrity_check")
                    while try cipher.step() { problems.append(cipher.text(at: 0) ?? "") }
                }
                let structure = try connection.prepare("PRAGMA integrity_check")
                while try structure.step() {
                    if let line = structure.text(at: 0), line != "ok" { problems.append(line) }
                }
                return problems
            }
        }
    }
}
