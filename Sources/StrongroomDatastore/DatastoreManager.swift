// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomSQLite

/// Opens, lists and deletes the datastores in one directory (CDTDatastore's `CDTDatastoreManager`).
///
/// Each datastore is a folder `<directory>/<name>/` holding `db.sqlite` (and its WAL). Encrypted ones are SQLCipher
/// databases keyed with `HKDF-SHA256(data key, "db")` as a raw key, so no KDF runs per open.
///
/// - Important: **Fail-closed**, a deliberate change from CDTDatastore: a key provider that returns no key, a
///   wrong key, an encrypted datastore opened without its key, and an unencrypted one opened with a key are each a
///   typed ``DatastoreError`` — never an unencrypted store and never garbage.
public struct DatastoreManager: Sendable {
    /// The directory that holds the datastores.
    public let directory: URL
    /// The bounds every datastore opened here enforces.
    public let limits: DatastoreLimits

    /// Whether opening a datastore may create it.
    ///
    /// CDTDatastore creates a datastore whenever one is opened; ``createIfMissing`` keeps that for code ported from
    /// it (and is the default of the `datastore(named:…)` methods). ``existing`` is for everything that only reads
    /// or changes what is there: a mistyped name or folder is then ``DatastoreError/Code/notFound`` instead of a new,
    /// empty datastore — and no key provider runs, so a password provider writes no wrapped key for it.
    public enum OpenMode: Sendable, Hashable {
        /// Open the datastore, creating it (and the directory) when it does not exist.
        case createIfMissing
        /// Open the datastore only if it exists; nothing is created.
        case existing
    }

    /// A manager for `directory`. Nothing is created until a datastore is: the directory is made (owner-only) with
    /// the first one.
    ///
    /// - Throws: never today; kept so a manager can validate its directory without an API change.
    public init(directory: URL, limits: DatastoreLimits = .default) throws(DatastoreError) {
        self.directory = directory
        self.limits = limits
    }

    /// Opens the encrypted datastore `name` with the key `keyProvider` supplies, creating it first when `mode` is
    /// ``OpenMode/createIfMissing`` (the default, as CDTDatastore) and it does not exist.
    ///
    /// - Throws: ``DatastoreError/Code/invalidName``; ``DatastoreError/Code/notFound`` for a missing datastore in
    ///   ``OpenMode/existing`` mode (before the provider is asked for a key); ``DatastoreError/Code/keyRequired``
    ///   when the provider returns nil; ``DatastoreError/Code/wrongKey``; ``DatastoreError/Code/notEncrypted`` for
    ///   an existing unencrypted datastore; ``DatastoreError/Code/storage``.
    public func datastore(
        named name: String,
        keyProvider: any EncryptionKeyProvider,
        mode: OpenMode = .createIfMissing
    ) async throws(DatastoreError)
        -> Datastore
    {
        try Self.validate(name)
        try requireExistence(name, mode)
        let databaseKey = try await Self.databaseKey(from: keyProvider)
        return try open(name, key: databaseKey, mode: mode)
    }

    /// Opens the unencrypted datastore `name`, creating it first when `mode` is ``OpenMode/createIfMissing`` (the
    /// default) and it does not exist.
    ///
    /// - Throws: ``DatastoreError/Code/invalidName``; ``DatastoreError/Code/notFound`` for a missing datastore in
    ///   ``OpenMode/existing`` mode; ``DatastoreError/Code/keyRequired`` when it is encrypted;
    ///   ``DatastoreError/Code/storage``.
    public func datastore(named name: String, mode: OpenMode = .createIfMissing) throws(DatastoreError) -> Datastore {
        try Self.validate(name)
        try requireExistence(name, mode)
        return try open(name, key: nil, mode: mode)
    }

    /// Whether the datastore `name` exists (its database file does).
    ///
    /// - Throws: ``DatastoreError/Code/invalidName``.
    public func exists(named name: String) throws(DatastoreError) -> Bool {
        try Self.validate(name)
        return isDatastore(name)
    }

    private func requireExistence(_ name: String, _ mode: OpenMode) throws(DatastoreError) {
        guard mode == .existing, !isDatastore(name) else { return }
        throw DatastoreError(.notFound, "there is no datastore '\(name)' in \(directory.path)")
    }

    /// The names of the datastores in the directory, sorted (none when the directory does not exist yet).
    public func allDatastores() throws(DatastoreError) -> [String] {
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        do {
            return try FileManager.default.contentsOfDirectory(atPath: directory.path)
                .filter { (try? Self.validate($0)) != nil && isDatastore($0) }  // other entries are not ours
                .sorted()
        } catch {
            throw DatastoreError(.storage, "the datastore directory cannot be listed", underlying: error)
        }
    }

    /// Deletes the datastore `name` and everything in its folder. Close every handle on it first.
    ///
    /// - Throws: ``DatastoreError/Code/invalidName``, ``DatastoreError/Code/notFound``,
    ///   ``DatastoreError/Code/storage``.
    public func deleteDatastore(named name: String) throws(DatastoreError) {
        try Self.validate(name)
        guard isDatastore(name) else { throw DatastoreError(.notFound, "no datastore of that name") }
        do {
            try FileManager.default.removeItem(at: folder(name))
        } catch {
            throw DatastoreError(.storage, "the datastore could not be deleted", underlying: error)
        }
    }

    /// The SQLCipher key for the data key `provider` supplies: `HKDF-SHA256(data key, "db")`.
    static func databaseKey(from provider: any EncryptionKeyProvider) async throws(DatastoreError) -> SecureBytes {
        let provided: EncryptionKey?
        do {
            provided = try await provider.encryptionKey()
        } catch let error as DatastoreError {
            throw error  // wrongPassword and friends keep their code
        } catch {
            throw DatastoreError(.keyRequired, "the key provider failed", underlying: error)
        }
        guard let key = provided else {
            throw DatastoreError(.keyRequired, "the key provider returned no key; the datastore is not opened")
        }
        do {
            return try HKDFSHA256.deriveKey(from: key.bytes, label: "db")
        } catch {
            throw DatastoreError(.invalidKey, "the database key could not be derived", underlying: error)
        }
    }

    /// Names: 1 to 128 of `a-z 0-9 _ $ ( ) + -`, starting with a letter (CouchDB's rule without `/`): no path
    /// separators, no dots, nothing a file system treats specially.
    static func validate(_ name: String) throws(DatastoreError) {
        let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789_$()+-")
        guard (1...128).contains(name.count), let first = name.first, first.isLetter, first.isLowercase,
            name.allSatisfy({ allowed.contains($0) })
        else {
            throw DatastoreError(
                .invalidName,
                "a datastore name is 1 to 128 of a-z, 0-9 and _$()+-, starting with a letter"
            )
        }
    }

    private func folder(_ name: String) -> URL { directory.appending(path: name, directoryHint: .isDirectory) }

    private func databasePath(_ name: String) -> String { folder(name).appending(path: "db.sqlite").path }

    private func isDatastore(_ name: String) -> Bool { FileManager.default.fileExists(atPath: databasePath(name)) }

    /// Opens the database, telling a wrong key from a missing or superfluous one by the file's header.
    private func open(_ name: String, key: SecureBytes?, mode: OpenMode) throws(DatastoreError) -> Datastore {
        let path = databasePath(name)
        let existed = FileManager.default.fileExists(atPath: path)
        if !existed { try requireExistence(name, mode) }
        if existed {
            // Opening never creates: an empty file (and no WAL holding its pages) was truncated, or its creation
            // never finished; SQLite would silently start a new, empty datastore in it.
            if Self.size(of: path) == 0, Self.size(of: path + "-wal") ?? 0 == 0 {
                throw DatastoreError(
                    .tampered,
                    "the datastore file is empty (truncated?): restore it from a backup, or remove its folder to start over"
                )
            }
            let plaintext = Self.hasPlaintextHeader(path)
            if plaintext && key != nil {
                throw DatastoreError(.notEncrypted, "the datastore is not encrypted; it was not opened with a key")
            }
            if !plaintext && key == nil {
                throw DatastoreError(.keyRequired, "the datastore is encrypted; open it with its key provider")
            }
        } else {
            do {
                try FileManager.default.createDirectory(
                    at: directory,
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
                try FileManager.default.createDirectory(
                    at: folder(name),
                    withIntermediateDirectories: true,
                    attributes: [.posixPermissions: 0o700]
                )
                // SQLite gives the WAL and shared-memory files the database file's mode.
                try AtomicFile.write(Data(), to: path, mode: .createNew)
            } catch {
                throw DatastoreError(.storage, "the datastore folder cannot be created", underlying: error)
            }
        }
        do {
            let connection = try Connection(path: path, key: key)
            connection.setBusyTimeout(milliseconds: limits.lockTimeoutMilliseconds)
            try connection.execute("PRAGMA journal_mode = WAL")
            // Full fsync at every commit: an acknowledged write survives a crash or power loss.
            try connection.execute("PRAGMA synchronous = FULL")
            try connection.execute("PRAGMA foreign_keys = ON")
            // Negative: a size in KiB rather than in pages.
            try connection.execute("PRAGMA cache_size = -\(limits.pageCacheBytes >> 10)")
            if key == nil {
                // Unencrypted pages are plaintext: overwrite deleted content instead of leaving it in free pages.
                try connection.execute("PRAGMA secure_delete = ON")
            }
            try Schema.migrate(connection)
            let attachmentKey = key == nil ? nil : try Schema.attachmentKey(connection)
            return Datastore(
                name: name,
                folder: folder(name),
                attachmentKey: attachmentKey,
                connection: connection,
                limits: limits
            )
        } catch let error where error.code == .notADatabase && key != nil {
            throw DatastoreError(.wrongKey, "the key does not open this datastore", underlying: error)
        } catch {
            throw DatastoreError(storage: error)
        }
    }

    /// The size of the file at `path`, or nil when there is none.
    private static func size(of path: String) -> Int64? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.int64Value  // nil: no file
    }

    /// Whether the file starts with SQLite's plaintext magic (an unencrypted database). An empty file is neither.
    private static func hasPlaintextHeader(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }  // a read-only handle: closing cannot lose data
        let header = (try? handle.read(upToCount: 16)) ?? Data()  // unreadable: treated as not plaintext
        return header == Data("SQLite format 3\u{0}".utf8)
    }
}
