// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import SQLKit
import StrongroomWire

/// A `records` row exactly as the columns hold it: `plain`, `data` and `file_meta` as their JSON text, times in
/// microseconds. What an engine's prepared statements read and write; ``SQLServerStore`` turns it into a
/// ``StoredRecordText`` and back, so both paths share one decoder.
package struct RecordRow: Sendable, Hashable {
    package var index: Int64
    package var recordID: String
    package var writerID: String
    package var userID: String
    package var type: String
    package var plain: String
    package var data: String
    package var recordSignature: String?
    package var created: Int64
    package var lastModified: Int64
    package var version: String
    package var fileMeta: String?
    package var isPending: Bool

    package init(
        index: Int64,
        recordID: String,
        writerID: String,
        userID: String,
        type: String,
        plain: String,
        data: String,
        recordSignature: String?,
        created: Int64,
        lastModified: Int64,
        version: String,
        fileMeta: String?,
        isPending: Bool
    ) {
        self.index = index
        self.recordID = recordID
        self.writerID = writerID
        self.userID = userID
        self.type = type
        self.plain = plain
        self.data = data
        self.recordSignature = recordSignature
        self.created = created
        self.lastModified = lastModified
        self.version = version
        self.fileMeta = fileMeta
        self.isPending = isPending
    }
}

extension RecordRow {
    /// `SELECT` of every column, in the order of this type's properties, of the record whose ID is parameter 1,
    /// written with the engine's `placeholder` for a parameter number. Both engines' statements come from here.
    package static func selectStatement(placeholder: (Int) -> String) -> String {
        """
        SELECT idx, record_id, writer_id, user_id, type, plain, data, rec_sig, created, last_modified, version,
        file_meta, pending FROM records WHERE record_id = \(placeholder(1))
        """
    }

    /// The columns an insert binds per row.
    package static let insertedColumns = 12

    /// `INSERT` of `rows` rows of every column but `idx`, in that order, as parameters 1 to 12 for the first row,
    /// 13 to 24 for the second and so on; returns each new row's `record_id` and `idx`.
    package static func insertStatement(rows: Int = 1, placeholder: (Int) -> String) -> String {
        let values = (0..<max(rows, 1)).map { row in
            let first = row * insertedColumns + 1
            return "(" + (first..<first + insertedColumns).map(placeholder).joined(separator: ", ") + ")"
        }
        return """
            INSERT INTO records (record_id, writer_id, user_id, type, plain, data, rec_sig, created, last_modified,
            version, file_meta, pending) VALUES \(values.joined(separator: ", ")) RETURNING record_id, idx
            """
    }
}

/// The two statements every record read and write runs, written for one engine's driver instead of going through
/// SQLKit: PostgreSQL prepares them once per connection (SQLKit sends each query as an unnamed statement, parsed
/// and planned every time); SQLite runs them as fixed text through sqlite-nio and reads columns without a
/// `Decoder`. Each call is one statement, as the SQL path's; ``SQLServerStore`` counts it the same way.
package protocol PreparedRecordStatements: Sendable {
    /// `SELECT` of every column of the record `recordID`, or nil when there is none.
    func row(recordID: String) async throws -> RecordRow?
    /// `INSERT` of `row` (its `index` ignored), returning the index the database gave it.
    func insert(_ row: RecordRow) async throws -> Int64
}

extension SQLServerStore {
    /// The columns of `text`, ready to insert.
    func recordRow(_ text: StoredRecordText) throws -> RecordRow {
        let record = text.record
        return RecordRow(
            index: record.index,
            recordID: record.recordID,
            writerID: record.writerID,
            userID: record.userID,
            type: record.type,
            plain: encodeStringMap(record.plain),
            data: text.dataJSON,
            recordSignature: record.recordSignature,
            created: record.created.microseconds,
            lastModified: record.lastModified.microseconds,
            version: record.version,
            fileMeta: try record.fileMeta.map(json),
            isPending: record.isPending
        )
    }

    /// A row's columns as SQLKit read them; a metadata-only row (``metadataColumns``) has no `data` or `rec_sig`,
    /// which are left empty.
    func recordRow(_ row: any SQLRow, includesData: Bool = true) throws -> RecordRow {
        RecordRow(
            index: try row.decode(column: "idx", as: Int64.self),
            recordID: try row.decode(column: "record_id", as: String.self),
            writerID: try row.decode(column: "writer_id", as: String.self),
            userID: try row.decode(column: "user_id", as: String.self),
            type: try row.decode(column: "type", as: String.self),
            plain: try row.decode(column: "plain", as: String.self),
            data: includesData ? try row.decode(column: "data", as: String.self) : "",
            recordSignature: includesData ? try row.decode(column: "rec_sig", as: String?.self) : nil,
            created: try row.decode(column: "created", as: Int64.self),
            lastModified: try row.decode(column: "last_modified", as: Int64.self),
            version: try row.decode(column: "version", as: String.self),
            fileMeta: try row.decode(column: "file_meta", as: String?.self),
            isPending: try row.decode(column: "pending", as: Bool.self)
        )
    }

    /// The record in `row`, its data left as the stored JSON text.
    func recordText(_ row: RecordRow) throws -> StoredRecordText {
        StoredRecordText(
            record: StoredRecord(
                index: row.index,
                recordID: row.recordID,
                writerID: row.writerID,
                userID: row.userID,
                type: row.type,
                plain: try decodeStringMap(row.plain),
                data: [:],
                recordSignature: row.recordSignature,
                created: Timestamp(microseconds: row.created),
                lastModified: Timestamp(microseconds: row.lastModified),
                version: row.version,
                fileMeta: try row.fileMeta.map { try decodeJSON(FileMeta.self, $0) },
                isPending: row.isPending
            ),
            dataJSON: row.data
        )
    }
}
