// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
package import Logging
import SQLiteKit
import StrongroomCore

/// A consistent copy of an embedded deployment, taken while it serves (`strongroom-server backup`), and its
/// restoration (`restore`).
///
/// A backup is itself a data directory, so the server can serve it as it is: the database as one file written by
/// SQLite's `VACUUM INTO` (a snapshot of one read transaction: every write acknowledged before it started, nothing
/// half-written, the log folded in), then the token key, the client-certificate CA, the server's TLS identity
/// (`tls init`'s folder) and the file bodies of the folder blob store. The file bodies are copied after the snapshot, so every body a snapshotted record names is there
/// (bodies are immutable once their record is committed); a body deleted between the snapshot and its copy is the one
/// thing a backup can miss. Everything is created owner-only (folders 0700, files 0600). Everything written is
/// ciphertext or a secret the data directory holds already.
package enum EmbeddedBackup {
    /// What a backup or a restoration copied.
    package struct Summary: Sendable, CustomStringConvertible {
        package var databaseBytes: Int64 = 0
        package var fileBodies = 0
        package var tokenKey = false
        package var certificateAuthority = false
        /// The server's TLS identity (`tls init`'s folder): without it a restored server would need a new server CA,
        /// which clients do not trust.
        package var tlsIdentity = false

        package var description: String {
            var parts = ["database \(databaseBytes) bytes", "\(fileBodies) file bodies"]
            if tokenKey { parts.append("token key") }
            if certificateAuthority { parts.append("CA") }
            if tlsIdentity { parts.append("TLS identity") }
            return parts.joined(separator: ", ")
        }
    }

    /// Writes a backup of the deployment in `dataDirectory` (its CA in `caDirectory`, when given) to the new folder
    /// `output`.
    ///
    /// - Throws: ``ServerError/Code/configuration`` when `dataDirectory` holds no database or `output` exists.
    package static func create(
        dataDirectory: String,
        caDirectory: String?,
        output: String,
        logger: Logger
    ) async throws -> Summary {
        let database = EmbeddedDatabase.databasePath(in: dataDirectory)
        // Written under a staging name and renamed when complete: an interrupted backup never looks like a backup.
        let staging = output + ".partial"
        try await BlockingExecutor.shared.run { _ throws(ServerError) in
            guard FileManager.default.fileExists(atPath: database) else {
                throw ServerError(.configuration, "there is no Strongroom database in \(dataDirectory)")
            }
            guard !FileManager.default.fileExists(atPath: output) else {
                throw ServerError(.exists, "\(output) exists already: a backup goes to a new folder")
            }
            try removeStaleStaging(staging)
            try makeFolder(staging)
        }
        do {
            let summary = try await copy(
                database: database,
                dataDirectory: dataDirectory,
                caDirectory: caDirectory,
                into: staging,
                logger: logger
            )
            try await BlockingExecutor.shared.run { _ throws(ServerError) in
                // Durable before it is named: every copy and its folder, then the rename and the parent folder.
                try synchronizeTree(staging)
                guard rename(staging, output) == 0 else {
                    throw ServerError(.storage, "\(staging) could not be renamed to \(output) (errno \(errno))")
                }
                try synchronize(
                    URL(fileURLWithPath: output).deletingLastPathComponent().path,
                    what: "the backup's folder"
                )
            }
            return summary
        } catch {
            // The copy's own error is the one to report.
            await BlockingExecutor.shared.run { _ in try? removeStaleStaging(staging) }
            throw error
        }
    }

    /// The snapshot and the copies, into `output`.
    private static func copy(
        database: String,
        dataDirectory: String,
        caDirectory: String?,
        into output: String,
        logger: Logger
    ) async throws -> Summary {
        let snapshot = EmbeddedDatabase.databasePath(in: output)
        let connection = try await SQLiteConnection.open(storage: .file(path: database), logger: databaseLogger(logger))
        do {
            _ = try await connection.query("PRAGMA busy_timeout = 5000")
            _ = try await connection.query("VACUUM INTO ?1", [.text(snapshot)])
            try await connection.close()
        } catch {
            try? await connection.close()  // the snapshot's own error is the one to report
            throw error
        }
        return try await BlockingExecutor.shared.run { _ throws(ServerError) in
            var summary = Summary()
            try ownerOnly(snapshot)
            summary.databaseBytes = size(of: snapshot)
            summary.tokenKey = try copyIfPresent(dataDirectory + "/token.key", to: output + "/token.key")
            summary.certificateAuthority =
                try copyFolder(
                    caDirectory ?? dataDirectory + "/ca",
                    to: output + "/ca",
                    skipping: { _ in false }
                ) != nil
            summary.tlsIdentity =
                try copyFolder(dataDirectory + "/tls", to: output + "/tls", skipping: { _ in false }) != nil
            summary.fileBodies =
                try copyFolder(dataDirectory + "/blobs", to: output + "/blobs", skipping: { $0.hasSuffix(".partial") })
                ?? 0
            return summary
        }
    }

    /// Copies the backup in `input` into `dataDirectory`, a new folder or an empty one. The copy is made under
    /// `<dataDirectory>.partial` and renamed when complete, so an interrupted restore leaves no half data directory
    /// (and the next one clears what it left).
    ///
    /// - Throws: ``ServerError/Code/configuration`` when `input` is not a backup or `dataDirectory` holds anything.
    package static func restore(from input: String, to dataDirectory: String) async throws -> Summary {
        try await BlockingExecutor.shared.run { _ throws(ServerError) in
            let database = EmbeddedDatabase.databasePath(in: input)
            guard NoFollowCopy.kind(of: database) != .missing else {
                throw ServerError(.configuration, "\(input) is not a Strongroom backup (no strongroom.sqlite)")
            }
            let existing = (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? []  // none: new
            guard existing.isEmpty else {
                throw ServerError(.exists, "\(dataDirectory) holds files already: restore into a new folder")
            }
            let staging = dataDirectory + ".partial"
            try removeStaleStaging(staging)
            try makeFolder(staging)
            do throws(ServerError) {
                return try restore(database: database, from: input, into: staging, then: dataDirectory)
            } catch {
                try? removeStaleStaging(staging)  // the copy's own error is the one to report
                throw error
            }
        }
    }

    /// The copies of a restoration into `staging`, then its rename to `dataDirectory`.
    private static func restore(
        database: String,
        from input: String,
        into staging: String,
        then dataDirectory: String
    ) throws(ServerError) -> Summary {
        var summary = Summary()
        try NoFollowCopy.copyFile(database, to: EmbeddedDatabase.databasePath(in: staging))
        summary.databaseBytes = size(of: EmbeddedDatabase.databasePath(in: staging))
        summary.tokenKey = try copyIfPresent(input + "/token.key", to: staging + "/token.key")
        summary.certificateAuthority =
            try copyFolder(input + "/ca", to: staging + "/ca", skipping: { _ in false }) != nil
        summary.tlsIdentity = try copyFolder(input + "/tls", to: staging + "/tls", skipping: { _ in false }) != nil
        summary.fileBodies = try copyFolder(input + "/blobs", to: staging + "/blobs", skipping: { _ in false }) ?? 0
        try synchronizeTree(staging)
        // An empty folder given as the target is replaced by the complete copy.
        if FileManager.default.fileExists(atPath: dataDirectory) { rmdir(dataDirectory) }
        guard rename(staging, dataDirectory) == 0 else {
            throw ServerError(.storage, "\(staging) could not be renamed to \(dataDirectory) (errno \(errno))")
        }
        try synchronize(URL(fileURLWithPath: dataDirectory).deletingLastPathComponent().path, what: "the folder")
        return summary
    }

    // MARK: Files (blocking: run on the BlockingExecutor)

    /// `fsync` of every file in `folder` and its flat subfolders, then of the folders.
    private static func synchronizeTree(_ folder: String) throws(ServerError) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []  // just written by us
        for name in names {
            let path = folder + "/" + name
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                try synchronizeTree(path)
            } else {
                try synchronize(path, what: "the backup's \(name)")
            }
        }
        try synchronize(folder, what: "the backup's folder")
    }

    /// Removes what an interrupted backup to the same place left.
    private static func removeStaleStaging(_ staging: String) throws(ServerError) {
        guard FileManager.default.fileExists(atPath: staging) else { return }
        do { try FileManager.default.removeItem(atPath: staging) } catch {
            throw ServerError(.storage, "\(staging), left by an interrupted backup, could not be removed")
        }
    }

    /// A new folder, owner-only; an existing one is refused.
    private static func makeFolder(_ path: String) throws(ServerError) {
        guard !FileManager.default.fileExists(atPath: path) else {
            throw ServerError(.exists, "\(path) exists already: a backup goes to a new folder")
        }
        try DataDirectory.createFolder(path, naming: path)
    }

    /// Copies the file at `source` to `target` when there is one; whether there was. A link or anything but a
    /// regular file is refused (``NoFollowCopy``).
    private static func copyIfPresent(_ source: String, to target: String) throws(ServerError) -> Bool {
        guard NoFollowCopy.kind(of: source) != .missing else { return false }
        try NoFollowCopy.copyFile(source, to: target)
        return true
    }

    /// Copies the files directly in `source` (a flat folder, not a link to one) to a new owner-only `target`,
    /// leaving out the names `skipping` picks; how many it copied, or nil when `source` does not exist. A link or
    /// anything else that is not a regular file in it is refused before anything is copied.
    private static func copyFolder(
        _ source: String,
        to target: String,
        skipping: (String) -> Bool
    ) throws(ServerError) -> Int? {
        guard let names = try NoFollowCopy.regularFiles(in: source, skipping: skipping) else { return nil }
        try makeFolder(target)
        var copied = 0
        for name in names {
            // A name listed and then gone (an upload's staging file renamed, a body deleted) is not copied.
            guard NoFollowCopy.kind(of: source + "/" + name) != .missing else { continue }
            try NoFollowCopy.copyFile(source + "/" + name, to: target + "/" + name)
            copied += 1
        }
        return copied
    }

    /// Makes the file `path` (which this process just wrote) owner-only, through its descriptor, never a link's
    /// target.
    private static func ownerOnly(_ path: String) throws(ServerError) {
        let descriptor = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else { throw ServerError(.storage, "\(path) could not be opened (errno \(errno))") }
        defer { close(descriptor) }
        guard fchmod(descriptor, 0o600) == 0 else {
            throw ServerError(.storage, "\(path) could not be made owner-only (errno \(errno))")
        }
    }

    private static func size(of path: String) -> Int64 {
        // The copy was just written: a size that cannot be read shows as 0 in the summary only.
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
    }
}
