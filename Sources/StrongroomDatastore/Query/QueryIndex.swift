// Strongroom — SPDX-License-Identifier: Apache-2.0

/// A query index's definition (an entry of CDTDatastore's `listIndexes`).
public struct QueryIndex: Sendable, Hashable {
    /// What an index holds.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The fields' values, one entry per array element: equality, ranges, `$in`, `$exists` and sorting.
        case json
        /// The fields' text in an SQLite FTS5 table, for `$text` (at most one per datastore).
        case text
    }

    /// How a text index splits words (CDTQ's `tokenize` setting).
    public enum Tokenizer: String, Sendable, Hashable, CaseIterable {
        /// Words of letters and digits, case-folded and without diacritics (FTS5's `unicode61`).
        case simple
        /// The same, with English Porter stemming: "reading" finds "reads" (FTS5's `porter unicode61`).
        case porter
    }

    /// The index's name: a letter, then letters, digits and `_`, at most 64 characters.
    public var name: String
    /// Its kind.
    public var kind: Kind
    /// The dotted field paths it covers, in order.
    public var fields: [String]
    /// The tokenizer of a text index; nil for a JSON index.
    public var tokenizer: Tokenizer?

    /// A definition; used by ``Datastore/listIndexes()``.
    public init(name: String, kind: Kind, fields: [String], tokenizer: Tokenizer? = nil) {
        self.name = name
        self.kind = kind
        self.fields = fields
        self.tokenizer = kind == .text ? (tokenizer ?? .simple) : nil
    }
}

/// How ``Datastore/find(selector:fields:sort:skip:limit:)`` answers a selector (``Datastore/explain(selector:sort:)``).
public struct QueryPlan: Sendable, Hashable, CustomStringConvertible {
    /// The indexes whose entries narrow the candidates, by name; `_id` conditions use the document table and are
    /// named `_id`.
    public var indexes: [String]
    /// The indexes that order the results, by name; empty when the results are sorted in memory (or not at all).
    public var sortIndexes: [String]
    /// Whether every live document is read and matched (no usable index).
    public var isFullScan: Bool

    /// A plan; made by ``Datastore/explain(selector:sort:)``.
    public init(indexes: [String], sortIndexes: [String], isFullScan: Bool) {
        self.indexes = indexes
        self.sortIndexes = sortIndexes
        self.isFullScan = isFullScan
    }

    /// `"index name, age; sort by index basic"` or `"scan"`.
    public var description: String {
        var parts = [isFullScan ? "scan" : "index \(indexes.joined(separator: ", "))"]
        if !sortIndexes.isEmpty { parts.append("sort by index \(sortIndexes.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}
