// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
package import StrongroomWire

/// A file's re-wrapped key (docs/design/Revocation.md, "Files"): the prologue stored beside the record.
extension SQLServerStore {
    package func filePrologue(id: RecordID) async throws -> String? {
        try await database.raw(
            """
            SELECT file_prologue FROM records WHERE record_id = \(bind: id.description) AND NOT pending
            AND file_meta IS NOT NULL
            """
        ).first()?.decode(column: "file_prologue", as: String?.self)
    }

    package func rewrapFile(
        id: RecordID,
        expectedVersion: String,
        prologue: String,
        fileMeta: FileMeta,
        newVersion: String,
        at time: Timestamp
    ) async throws -> VersionedOutcome<StoredRecord> {
        let updated = try await database.raw(
            """
            UPDATE records SET file_prologue = \(bind: prologue), file_meta = \(bind: try json(fileMeta)),
            version = \(bind: newVersion), last_modified = \(bind: time.microseconds)
            WHERE record_id = \(bind: id.description) AND version = \(bind: expectedVersion) AND NOT pending
            AND file_meta IS NOT NULL RETURNING *
            """
        ).first()
        if let updated { return .done(try decodeRecord(updated)) }
        return try await record(id: id) == nil ? .notFound : .conflict
    }
}
