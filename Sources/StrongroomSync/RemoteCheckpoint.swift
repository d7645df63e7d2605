// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A replica's checkpoint on the server (CouchDB keeps one on each side): a record of the datastore's type, signed
/// and encrypted like a revision, whose plain meta holds only its format version and a random ID (`sr.c`) and whose
/// one field is an epoch that moves at the end of every replication. The datastore keeps the record's ID and the
/// epoch it last wrote.
///
/// When the server answers without the record, or with an older epoch, it has lost what this replica did since — it
/// was restored from an older backup, say, and its record order may even hand out again positions the pull checkpoint
/// has passed. Both directions then start over from the beginning: revs_diff sends only what the server lacks and
/// `forceInsert` ignores what the datastore has. A server can force that (cost: one full read), not hide a loss.
struct RemoteCheckpoint: Sendable {
    let session: ReplicationSession

    /// What ``check()`` found.
    struct Found: Sendable {
        /// The checkpoint record as the server holds it, when it is there and current.
        var record: Record?
        /// The server has lost this replica's checkpoint: start over.
        var rolledBack: Bool
    }

    private var localKey: String { session.names.remoteKey }

    /// Compares the server's record with the epoch this replica last wrote.
    func check() async throws -> Found {
        guard let saved = try await session.datastore.checkpoint(localKey) else {
            return Found(record: nil, rolledBack: false)  // the first replication against this server
        }
        let parts = saved.split(separator: " ")
        guard parts.count == 2, let recordID = UUID(uuidString: String(parts[0])), let epoch = Int64(parts[1]) else {
            return Found(record: nil, rolledBack: true)
        }
        // (A `catch where` on the typed error crashes Swift 6.3's SIL verifier; a Result does not.)
        let outcome: Result<Record, ClientError>
        do {
            outcome = .success(try await session.client.read(recordID: recordID))
        } catch {
            outcome = .failure(error)
        }
        let record: Record
        switch outcome {
        case .success(let found): record = found
        case .failure(let error) where error.code == .notFound || error.code == .forbidden:
            return Found(record: nil, rolledBack: true)
        case .failure(let error): throw error
        }
        guard ClientID(record.meta.writerID) == session.clientID,
            record.meta.type == session.type,
            record.meta.plain[RevisionRecord.PlainKey.checkpoint] != nil,
            let stored = record.data[Self.epochField].flatMap({ Int64($0) })
        else { throw SyncError(.tampered, "the server's checkpoint record is not this replica's") }
        return Found(record: stored < epoch ? nil : record, rolledBack: stored < epoch)
    }

    /// Forgets both local checkpoints, the record and the attachment bodies known to be on the server: the next
    /// push and pull start from the beginning.
    func restart() async throws {
        for key in [session.names.pushKey, session.names.pullKey] {
            try await session.datastore.setCheckpoint(key, "0")
        }
        try await session.datastore.setCheckpoint(localKey, "")
        // The attachment bodies it knew of on the server may be gone too: upload them again when needed.
        try await session.datastore.removeCheckpoints(withPrefix: session.names.attachmentKey(""))
    }

    /// Writes the next epoch: an update of `record`, or a new record when there is none.
    func advance(from record: Record?) async throws {
        let saved = try await session.datastore.checkpoint(localKey) ?? ""
        // Read from the datastore's file: range-checked before the arithmetic.
        let last = saved.split(separator: " ").last.flatMap { Int64($0) }.map { (0..<Int64.max).contains($0) ? $0 : 0 }
        let epoch = (last ?? 0) + 1
        let data = [Self.epochField: String(epoch)]
        let written: Record
        if let record {
            written = try await session.client.update(meta: record.meta, newData: data)
        } else {
            written = try await SyncError.overCaps("this replica's checkpoint record") {
                try await session.client.write(
                    type: session.type,
                    data: data,
                    plain: [
                        RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
                        RevisionRecord.PlainKey.checkpoint: UUID().uuidString.lowercased(),
                    ]
                )
            }
        }
        try await session.datastore.setCheckpoint(
            localKey,
            "\(RecordID(written.meta.recordID)) \(epoch)"
        )
    }

    static let epochField = "epoch"
}
