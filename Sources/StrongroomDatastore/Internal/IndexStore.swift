// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomSQLite

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A query index as stored: its row number, definition, parsed paths and how far it has caught up.
struct StoredIndex: Sendable {
    var id: Int64
    var definition: QueryIndex
    var paths: [[String]]
    var lastSequence: Int64
}

/// The query indexes' SQL, run on the datastore's serial executor. Index contents live in `query_values` (JSON
/// indexes) and the FTS5 table `query_text` (the text index), inside the datastore's encrypted database. Every
/// value is bound; the only names built into SQL are our own (`c0`, `c1`… and the tokenizer from a fixed list).
struct IndexStore {
    let store: RevisionStore
    var connection: Connection { store.connection }

    /// At most this many indexes per datastore, and fields per index.
    static let maximumIndexes = 32
    static let maximumFields = 16

    // MARK: Definitions

    func all() throws(DatastoreError) -> [StoredIndex] {
        try store.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                "SELECT index_id, name, type, fields, tokenizer, last_sequence FROM query_indexes ORDER BY name"
            )
            var result: [StoredIndex] = []
            while try statement.step() {
                guard let kind = QueryIndex.Kind(rawValue: statement.text(at: 2) ?? ""),
                    let fields = try? JSONDecoder().decode(
                        [String].self,
                        from: Data((statement.text(at: 3) ?? "").utf8)
                    )
                else { throw SQLiteError(.corrupt, "a query index definition is damaged") }
                let definition = QueryIndex(
                    name: statement.text(at: 1) ?? "",
                    kind: kind,
                    fields: fields,
                    tokenizer: statement.text(at: 4).flatMap(QueryIndex.Tokenizer.init(rawValue:))
                )
                result.append(
                    StoredIndex(
                        id: statement.int64(at: 0),
                        definition: definition,
                        paths: fields.map(Self.path),
                        lastSequence: statement.int64(at: 5)
                    )
                )
            }
            return result
        }
    }

    /// Records a definition (and makes the text index's FTS5 table); the caller catches it up.
    func create(_ definition: QueryIndex) throws(DatastoreError) {
        // Cannot fail: an array of strings always encodes.
        let fields = String(decoding: (try? JSONEncoder().encode(definition.fields)) ?? Data("[]".utf8), as: UTF8.self)
        try store.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                "INSERT INTO query_indexes (name, type, fields, tokenizer) VALUES (?, ?, ?, ?)"
            )
            try statement.bind(definition.name, at: 1)
            try statement.bind(definition.kind.rawValue, at: 2)
            try statement.bind(fields, at: 3)
            try statement.bind(definition.tokenizer?.rawValue, at: 4)
            try statement.run()
            if definition.kind == .text, let tokenizer = definition.tokenizer {
                let columns = definition.fields.indices.map { "c\($0)" }.joined(separator: ", ")
                let tokenize = tokenizer == .porter ? "porter unicode61" : "unicode61"
                try connection.execute(
                    "CREATE VIRTUAL TABLE query_text USING fts5(\(columns), tokenize = '\(tokenize)')"
                )
            }
        }
    }

    /// Removes an index and its entries.
    func delete(_ index: StoredIndex) throws(DatastoreError) {
        try store.sql { () throws(SQLiteError) in
            let statement = try connection.prepare("DELETE FROM query_values WHERE index_id = ?")
            try statement.bind(index.id, at: 1)
            try statement.run()
            let definition = try connection.prepare("DELETE FROM query_indexes WHERE index_id = ?")
            try definition.bind(index.id, at: 1)
            try definition.run()
            if index.definition.kind == .text { try connection.execute("DROP TABLE IF EXISTS query_text") }
        }
    }

    /// Whether SQLCipher was built with FTS5 (Debian's is).
    func isTextSearchEnabled() throws(DatastoreError) -> Bool {
        try store.sql { () throws(SQLiteError) in
            try connection.scalarText("SELECT sqlite_compileoption_used('ENABLE_FTS5')") == "1"
        }
    }

    static func path(_ field: String) -> [String] {
        field.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    // MARK: Catching up

    /// The newest revision sequence (0 for an empty datastore): how far an index must catch up.
    func newestSequence() throws(DatastoreError) -> Int64 {
        try store.sql { () throws(SQLiteError) in
            Int64(try connection.scalarText("SELECT coalesce(max(sequence), 0) FROM revs") ?? "0") ?? 0
        }
    }

    /// Brings `indexes` up to the newest sequence: every document changed since an index's `last_sequence` has its
    /// entries replaced from its winning revision (none when deleted). Runs inside the caller's transaction.
    func catchUp(_ indexes: [StoredIndex]) throws(DatastoreError) {
        let target = try newestSequence()
        let behind = indexes.filter { $0.lastSequence < target }
        guard let from = behind.map(\.lastSequence).min() else { return }
        let changed = try store.sql { () throws(SQLiteError) in
            let statement = try connection.prepare(
                "SELECT doc_id, max(sequence) FROM revs WHERE current = 1 AND sequence > ? GROUP BY doc_id"
            )
            try statement.bind(from, at: 1)
            var rows: [(docRow: Int64, sequence: Int64)] = []
            while try statement.step() { rows.append((statement.int64(at: 0), statement.int64(at: 1))) }
            return rows
        }
        // A JSON index never caught up is built from nothing: its rows (a purge's `refresh` may have left some) go
        // in one statement here, so each document's rows need no delete of their own below.
        let building = Set(behind.filter { $0.lastSequence == 0 && $0.definition.kind != .text }.map(\.id))
        try store.sql { () throws(SQLiteError) in
            for index in building {
                try connection.withStatement("DELETE FROM query_values WHERE index_id = ?") {
                    statement throws(SQLiteError) in
                    try statement.bind(index, at: 1)
                    try statement.run()
                }
            }
        }
        for (docRow, sequence) in changed {
            let winner = try store.sql { () throws(SQLiteError) in try store.winner(docRow: docRow) }
            var body: [String: JSONValue]?
            if let winner, !winner.isDeleted, let json = winner.json { body = try BodyCodec.decode(json) }
            for index in behind where sequence > index.lastSequence {
                try store.sql { () throws(SQLiteError) in
                    if index.definition.kind == .text {
                        try replaceText(index, docRow: docRow, body: body)
                    } else {
                        try replaceValues(index, docRow: docRow, body: body, isEmpty: building.contains(index.id))
                    }
                }
            }
        }
        try store.sql { () throws(SQLiteError) in
            for index in behind {
                let statement = try connection.prepare("UPDATE query_indexes SET last_sequence = ? WHERE index_id = ?")
                try statement.bind(target, at: 1)
                try statement.bind(index.id, at: 2)
                try statement.run()
            }
        }
    }

    /// Replaces every index's entries of one document from its winning revision now (none when it has no live
    /// winner or no longer exists): a purge changes a document without a new sequence for ``catchUp(_:)`` to find.
    func refresh(docRow: Int64) throws(DatastoreError) {
        let indexes = try all()
        guard !indexes.isEmpty else { return }
        let winner = try store.sql { () throws(SQLiteError) in try store.winner(docRow: docRow) }
        var body: [String: JSONValue]?
        if let winner, !winner.isDeleted, let json = winner.json { body = try BodyCodec.decode(json) }
        for index in indexes {
            try store.sql { () throws(SQLiteError) in
                if index.definition.kind == .text {
                    try replaceText(index, docRow: docRow, body: body)
                } else {
                    try replaceValues(index, docRow: docRow, body: body)
                }
            }
        }
    }

    /// Replaces the document's rows of a JSON index; `isEmpty`: the index has no rows for it (nothing to delete).
    private func replaceValues(
        _ index: StoredIndex,
        docRow: Int64,
        body: [String: JSONValue]?,
        isEmpty: Bool = false
    ) throws(SQLiteError) {
        if !isEmpty {
            try connection.withStatement("DELETE FROM query_values WHERE doc_id = ? AND index_id = ?") {
                statement throws(SQLiteError) in
                try statement.bind(docRow, at: 1)
                try statement.bind(index.id, at: 2)
                try statement.run()
            }
        }
        guard let body else { return }
        for (field, path) in index.paths.enumerated() {
            for entry in Self.entries(SelectorMatcher.lookup(path, in: .object(body))) {
                try connection.withStatement(
                    "INSERT INTO query_values (index_id, field, doc_id, rank, value, whole) VALUES (?, ?, ?, ?, ?, ?)"
                ) { statement throws(SQLiteError) in
                    try statement.bind(index.id, at: 1)
                    try statement.bind(Int64(field), at: 2)
                    try statement.bind(docRow, at: 3)
                    try statement.bind(entry.rank, at: 4)
                    if let value = IndexValue(entry.value) {
                        try value.bind(to: statement, at: 5)
                    } else {
                        try statement.bindNull(at: 5)
                    }
                    try statement.bind(entry.whole, at: 6)
                    try statement.run()
                }
            }
        }
    }

    private func replaceText(_ index: StoredIndex, docRow: Int64, body: [String: JSONValue]?) throws(SQLiteError) {
        try connection.withStatement("DELETE FROM query_text WHERE rowid = ?") { statement throws(SQLiteError) in
            try statement.bind(docRow, at: 1)
            try statement.run()
        }
        guard let body else { return }
        let texts = index.paths.map { Self.text(SelectorMatcher.lookup($0, in: .object(body))) }
        guard texts.contains(where: { $0 != nil }) else { return }
        let placeholders = Array(repeating: "?", count: texts.count).joined(separator: ", ")
        let columns = texts.indices.map { "c\($0)" }.joined(separator: ", ")
        try connection.withStatement("INSERT INTO query_text (rowid, \(columns)) VALUES (?, \(placeholders))") {
            statement throws(SQLiteError) in
            try statement.bind(docRow, at: 1)
            for (offset, text) in texts.enumerated() { try statement.bind(text, at: Int32(offset + 2)) }
            try statement.run()
        }
    }

    /// A field's index entries: one for a scalar, a missing field or an object; one per distinct element for an
    /// array (one for an empty array). `whole` is the rank of the field's own value, for sorting.
    static func entries(_ value: JSONValue?) -> [IndexEntry] {
        guard case .array(let items)? = value else {
            return [IndexEntry(rank: SelectorMatcher.rank(value), value: value, whole: SelectorMatcher.rank(value))]
        }
        guard !items.isEmpty else { return [IndexEntry(rank: 5, value: nil, whole: 5)] }
        var seen: Set<JSONValue> = []
        return items.filter { seen.insert($0).inserted }.map {
            IndexEntry(rank: SelectorMatcher.rank($0), value: $0, whole: 5)
        }
    }

    /// The words a text index keeps for a field: a string, or an array's strings; nil otherwise.
    static func text(_ value: JSONValue?) -> String? {
        switch value {
        case .string(let text)?: return text
        case .array(let items)?:
            let strings = items.compactMap(\.stringValue)
            return strings.isEmpty ? nil : strings.joined(separator: " ")
        default: return nil
        }
    }
}

/// One `query_values` row's content: the value's (or element's) type rank, the value, the whole field's rank.
struct IndexEntry {
    var rank: Int64
    var value: JSONValue?
    var whole: Int64
}

/// A scalar as the index stores and compares it: booleans as 0/1, numbers as reals, strings as text (compared by
/// code point); nil for null, arrays and objects (their rank alone is kept).
enum IndexValue: Sendable, Hashable {
    case integer(Int64)
    case real(Double)
    case text(String)

    init?(_ value: JSONValue?) {
        switch value {
        case .bool(let flag)?: self = .integer(flag ? 1 : 0)
        case .number(let number)?: self = .real(number)
        case .string(let text)?: self = .text(text)
        default: return nil
        }
    }

    func bind(to statement: Statement, at index: Int32) throws(SQLiteError) {
        switch self {
        case .integer(let value): try statement.bind(value, at: index)
        case .real(let value): try statement.bind(value, at: index)
        case .text(let value): try statement.bind(value, at: index)
        }
    }
}
