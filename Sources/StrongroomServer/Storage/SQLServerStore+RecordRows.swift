// Strongroom — SPDX-License-Identifier: Apache-2.0
import SQLKit
import StrongroomWire

/// A stored record and its row, both ways, and SQLKit's codec for the record statements that run through SQLKit
/// (updates, deletes and listings).
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

    /// A row's columns as SQLKit read them; a metadata-only row (``RecordRow/metadataColumns``) has no body
    /// columns, which are left empty.
    func recordRow(_ row: any SQLRow, includesData: Bool = true) throws -> RecordRow {
        try RecordRow { column in
            if column.isBody && !includesData { return column.kind == .optionalText ? .null : .text("") }
            let name = column.name
            switch column.kind {
            case .integer: return .integer(try row.decode(column: name, as: Int64.self))
            case .text: return .text(try row.decode(column: name, as: String.self))
            case .optionalText: return try row.decode(column: name, as: String?.self).map(RecordValue.text) ?? .null
            case .boolean: return .boolean(try row.decode(column: name, as: Bool.self))
            }
        }
    }
}
