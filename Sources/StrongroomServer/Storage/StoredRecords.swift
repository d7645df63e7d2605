// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
package import StrongroomWire

/// A record row: ciphertext only, plus the plaintext `plain` metadata the protocol puts in the clear.
package struct StoredRecord: Sendable, Hashable {
    /// The search index (increasing; `last_index` in v1 search).
    package var index: Int64
    /// The record ID (lowercase UUID).
    package var recordID: String
    /// The writer (lowercase UUID).
    package var writerID: String
    /// The user (lowercase UUID).
    package var userID: String
    /// The record type.
    package var type: String
    /// The plaintext metadata, visible to the server by design.
    package var plain: [String: String]
    /// The field ciphertexts (`{}` for files).
    package var data: [String: String]
    /// The optional `rec_sig` a client attached.
    package var recordSignature: String?
    /// When it was created.
    package var created: Timestamp
    /// When it last changed.
    package var lastModified: Timestamp
    /// The version, new on every update.
    package var version: String
    /// Present for file records.
    package var fileMeta: FileMeta?
    /// A file record whose upload has not been committed: invisible to reads and searches.
    package var isPending: Bool
    /// The ciphertext's size in bytes (`data` and `rec_sig`), filled when a query reads metadata only.
    package var dataSize: Int = 0

    /// The wire form of the meta, identical on every endpoint.
    package var meta: RecordMeta {
        RecordMeta(
            recordID: recordID,
            writerID: writerID,
            userID: userID,
            type: type,
            plain: plain,
            created: created,
            lastModified: lastModified,
            version: version,
            fileMeta: fileMeta
        )
    }
}

/// A record as a single read answers it: the row, with its field ciphertexts left as the JSON object text the
/// store keeps, so the answer can carry them without decoding and encoding every ciphertext again.
package struct StoredRecordText: Sendable, Hashable {
    /// The row; its `data` is empty.
    package var record: StoredRecord
    /// The field ciphertexts as stored: a JSON object of strings, written by this server.
    package var dataJSON: String

    /// A record (its `data` moved into `dataJSON`) and its data as the store keeps it.
    package init(record: StoredRecord) {
        self.dataJSON = encodeStringMap(record.data)
        self.record = record
        self.record.data = [:]
    }

    /// A row read with its data as text.
    init(record: StoredRecord, dataJSON: String) {
        self.record = record
        self.dataJSON = dataJSON
    }

    /// The field ciphertexts, decoded.
    package func decodedData() throws -> [String: String] {
        try decodeStringMap(dataJSON)
    }
}

extension StoredRecord {
    /// The slot through which `reader` would read this record.
    func slot(reader: String) -> AccessKeySlot {
        AccessKeySlot(writerID: writerID, userID: userID, readerID: reader, type: type)
    }
}

/// What a version-checked update or delete found.
package enum VersionedOutcome<Value: Sendable>: Sendable {
    /// It happened; here is the result.
    case done(Value)
    /// The record exists at another version (HTTP 409).
    case conflict
    /// There is no such record.
    case notFound
}

/// Which records a search may see and the filters it applies.
package struct RecordQuery: Sendable, Hashable {
    /// Whose records a search covers.
    package enum Scope: Sendable, Hashable {
        /// Only records the caller wrote.
        case writtenBy(String)
        /// The caller's own records plus records shared with it through an allow-read policy.
        case readableBy(String)
    }

    /// Which records the caller may see.
    package var scope: Scope
    /// Only records after this index.
    package var afterIndex: Int64
    /// At most this many records.
    package var limit: Int
    /// Only these writers (empty: any).
    package var writerIDs: [String]
    /// Only these users (empty: any).
    package var userIDs: [String]
    /// Only these records (empty: any).
    package var recordIDs: [String]
    /// Only these types (empty: any).
    package var types: [String]
    /// Whether to read `data` and `rec_sig`; metadata-only queries leave them empty and fill
    /// ``StoredRecord/dataSize`` instead.
    package var includesData: Bool = true
}

/// The new contents of a record for a version-checked update.
package struct RecordUpdate: Sendable, Hashable {
    /// The version the record gets.
    package var newVersion: String
    /// The new `meta.plain`.
    package var plain: [String: String]
    /// The new encrypted fields.
    package var data: [String: String]
    /// The writer's new `rec_sig`, if any.
    package var recordSignature: String?
    /// The modification time.
    package var lastModified: Timestamp

    /// Describes an update.
    package init(
        newVersion: String,
        plain: [String: String],
        data: [String: String],
        recordSignature: String?,
        lastModified: Timestamp
    ) {
        self.newVersion = newVersion
        self.plain = plain
        self.data = data
        self.recordSignature = recordSignature
        self.lastModified = lastModified
    }
}

extension StoredRecord {
    /// A new committed record of `caller` (its writer and user), with a fresh ID and version, made at `now`.
    static func new(
        by caller: String,
        type: String,
        plain: [String: String],
        data: [String: String],
        recordSignature: String?,
        now: Timestamp
    ) -> StoredRecord {
        StoredRecord(
            index: 0,
            recordID: RecordID.random().description,
            writerID: caller,
            userID: caller,
            type: type,
            plain: plain,
            data: data,
            recordSignature: recordSignature,
            created: now,
            lastModified: now,
            version: SecureRandom.uuid().uuidString.lowercased(),
            fileMeta: nil,
            isPending: false
        )
    }
}
