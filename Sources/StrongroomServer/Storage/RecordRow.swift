// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

/// A `records` row exactly as the columns hold it: `plain`, `data` and `file_meta` as their JSON text, times in
/// microseconds. What every engine's record table reads and writes; ``SQLServerStore`` turns it into a
/// ``StoredRecordText`` and back, so every path shares one decoder.
///
/// ``RecordColumn`` is the one list of its columns: every statement's column list and every engine's row codec are
/// rendered from it, so a new column is a property here, a case there, and a migration.
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

/// The columns of `records`, in the order every statement lists them.
package enum RecordColumn: Int, CaseIterable, Sendable {
    case index, recordID, writerID, userID, type, plain, data, recordSignature, created, lastModified, version
    case fileMeta, isPending

    /// What a column holds.
    package enum Kind: Sendable {
        case integer, text, optionalText, boolean
    }

    /// The column's name in SQL.
    package var name: String {
        switch self {
        case .index: "idx"
        case .recordID: "record_id"
        case .writerID: "writer_id"
        case .userID: "user_id"
        case .type: "type"
        case .plain: "plain"
        case .data: "data"
        case .recordSignature: "rec_sig"
        case .created: "created"
        case .lastModified: "last_modified"
        case .version: "version"
        case .fileMeta: "file_meta"
        case .isPending: "pending"
        }
    }

    package var kind: Kind {
        switch self {
        case .index, .created, .lastModified: .integer
        case .recordID, .writerID, .userID, .type, .plain, .data, .version: .text
        case .recordSignature, .fileMeta: .optionalText
        case .isPending: .boolean
        }
    }

    /// Whether a metadata-only read leaves the column out (it reads the body's size instead).
    package var isBody: Bool { self == .data || self == .recordSignature }

    /// The columns an insert binds, in order: every one but `idx`, which the database assigns.
    package static let inserted = allCases.filter { $0 != .index }
}

/// One column's value, as an engine's codec reads and binds it.
package enum RecordValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case text(String)
    case boolean(Bool)
}

/// A `records` column that did not hold what the schema puts there, or a record statement that failed.
package struct RecordTableError: Error, CustomStringConvertible {
    /// `records.<column>: <problem>`.
    package let description: String

    package init(column: String, problem: String) { description = "records.\(column): \(problem)" }

    /// `column` held a value of another kind than the schema puts there.
    package static func unexpectedValue(in column: RecordColumn) -> RecordTableError {
        let expected =
            switch column.kind {
            case .integer: "an integer"
            case .text: "text"
            case .optionalText: "text or NULL"
            case .boolean: "a boolean"
            }
        return RecordTableError(column: column.name, problem: "expected \(expected)")
    }
}

extension RecordRow {
    /// The value of `column`.
    package subscript(column: RecordColumn) -> RecordValue {
        switch column {
        case .index: .integer(index)
        case .recordID: .text(recordID)
        case .writerID: .text(writerID)
        case .userID: .text(userID)
        case .type: .text(type)
        case .plain: .text(plain)
        case .data: .text(data)
        case .recordSignature: recordSignature.map(RecordValue.text) ?? .null
        case .created: .integer(created)
        case .lastModified: .integer(lastModified)
        case .version: .text(version)
        case .fileMeta: fileMeta.map(RecordValue.text) ?? .null
        case .isPending: .boolean(isPending)
        }
    }

    /// A row from an engine's codec, which answers each column's value; a value of the wrong kind is refused.
    package init(reading value: (RecordColumn) throws -> RecordValue) throws {
        func integer(_ column: RecordColumn) throws -> Int64 {
            guard case .integer(let number) = try value(column) else {
                throw RecordTableError.unexpectedValue(in: column)
            }
            return number
        }
        func text(_ column: RecordColumn) throws -> String {
            guard case .text(let text) = try value(column) else { throw RecordTableError.unexpectedValue(in: column) }
            return text
        }
        func optionalText(_ column: RecordColumn) throws -> String? {
            switch try value(column) {
            case .null: return nil
            case .text(let text): return text
            default: throw RecordTableError.unexpectedValue(in: column)
            }
        }
        func boolean(_ column: RecordColumn) throws -> Bool {
            guard case .boolean(let flag) = try value(column) else {
                throw RecordTableError.unexpectedValue(in: column)
            }
            return flag
        }
        self.init(
            index: try integer(.index),
            recordID: try text(.recordID),
            writerID: try text(.writerID),
            userID: try text(.userID),
            type: try text(.type),
            plain: try text(.plain),
            data: try text(.data),
            recordSignature: try optionalText(.recordSignature),
            created: try integer(.created),
            lastModified: try integer(.lastModified),
            version: try text(.version),
            fileMeta: try optionalText(.fileMeta),
            isPending: try boolean(.isPending)
        )
    }

    /// The bytes of its text columns, as a batched insert counts them.
    package var textSize: Int {
        plain.utf8.count + data.utf8.count + (recordSignature?.utf8.count ?? 0) + (fileMeta?.utf8.count ?? 0)
    }
}

extension RecordRow {
    /// `SELECT` of every column, in ``RecordColumn`` order, of the record whose ID is parameter 1, written with the
    /// engine's `placeholder` for a parameter number. Every engine's read comes from here.
    package static func selectStatement(placeholder: (Int) -> String) -> String {
        "SELECT \(RecordColumn.allCases.map(\.name).joined(separator: ", ")) FROM records WHERE record_id = \(placeholder(1))"
    }

    /// `INSERT` of `rows` rows of ``RecordColumn/inserted``, as parameters 1 to 12 for the first row, 13 to 24 for
    /// the second and so on; returns each new row's `record_id` and `idx`.
    package static func insertStatement(rows: Int = 1, placeholder: (Int) -> String) -> String {
        let width = RecordColumn.inserted.count
        let values = (0..<max(rows, 1)).map { row in
            let first = row * width + 1
            return "(" + (first..<first + width).map(placeholder).joined(separator: ", ") + ")"
        }
        return """
            INSERT INTO records (\(RecordColumn.inserted.map(\.name).joined(separator: ", "))) \
            VALUES \(values.joined(separator: ", ")) RETURNING record_id, idx
            """
    }

    /// The column list of a metadata-only read of `records` aliased `r`: every column but the body's, then the body's
    /// size as `data_size`. Rendered once (every metadata search uses it).
    package static let metadataColumns =
        (RecordColumn.allCases.filter { !$0.isBody }.map { "r.\($0.name)" }
        + ["CAST(octet_length(r.data) + COALESCE(octet_length(r.rec_sig), 0) AS BIGINT) AS data_size"])
        .joined(separator: ", ")
}
