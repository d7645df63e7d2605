// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore
import StrongroomSQLite

/// A sort key of ``Datastore/find(selector:fields:sort:skip:limit:)``.
public struct SortField: Sendable, Hashable {
    /// A dotted field path.
    public var field: String
    /// Descending instead of ascending.
    public var descending: Bool

    /// Sorts by `field`, ascending unless `descending`.
    public init(_ field: String, descending: Bool = false) {
        self.field = field
        self.descending = descending
    }
}

extension Datastore {
    /// The live documents matching a Cloudant Query (Mango) selector (CDTDatastore's `find:skip:limit:fields:sort:`).
    ///
    /// Operators: `$and $or $nor $not` at any level; on fields `$eq $ne $lt $lte $gt $gte $exists $in $nin $mod
    /// $size $all $elemMatch $regex $not`, several on one field, implicit `$eq` and `$and`, dotted paths, and CDTQ's
    /// array semantics (a condition on an array holds when it holds for any element); `$text` with a text index,
    /// at the top level or under `$and`. `$regex` is RE2 syntax, unanchored, linear in the value.
    ///
    /// Indexed fields narrow the candidates and an indexed sort orders them in SQL (so a page stops early); every
    /// candidate is then checked against the whole selector, so unindexed clauses are answered too, and a selector
    /// no index helps is answered by a scan. ``explain(selector:sort:)`` tells which.
    ///
    /// - Parameters:
    ///   - selector: the Mango selector, such as `["age": .object(["$gt": .number(12)])]`.
    ///   - fields: top-level fields to keep in each returned body (all when nil).
    ///   - sort: sort keys, applied in order (CouchDB's collation across types, strings by code point, missing
    ///     fields first; ties by document ID).
    ///   - skip: how many matches to leave out first.
    ///   - limit: at most this many results; at most ``DatastoreLimits/maximumBatchCount`` (the default).
    /// - Throws: ``DatastoreError/Code/invalidQuery`` naming the offending part (unknown operator, wrong argument,
    ///   bad pattern or text search, `$text` without a text index, too deep or too many clauses);
    ///   ``DatastoreError/Code/invalidArgument`` for negative paging; ``DatastoreError/Code/busy`` when an index
    ///   must catch up while another connection holds the write lock past ``DatastoreLimits/lockTimeout``.
    public func find(
        selector: [String: JSONValue],
        fields: [String]? = nil,
        sort: [SortField] = [],
        skip: Int = 0,
        limit: Int? = nil
    ) async throws(DatastoreError) -> [DocumentRevision] {
        let parsed = try SelectorParser.parse(selector)
        let limit = limit ?? limits.maximumBatchCount
        try checkPage(offset: skip, limit: limit)
        if let fields, fields.contains(where: { $0.contains(".") || $0.isEmpty }) {
            throw DatastoreError(.invalidQuery, "fields are top-level names")
        }
        if sort.contains(where: { IndexStore.path($0.field).contains(where: \.isEmpty) }) {
            throw DatastoreError(.invalidQuery, "a sort field is a dotted path without empty parts")
        }
        let wanted = skip.addingReportingOverflow(limit).overflow ? Int.max : skip + limit
        let indexed = try await withIndexes(catchUp: true) { store, indexes throws(DatastoreError) in
            guard let query = try QueryPlanner(indexes: indexes).query(parsed, sort: sort) else {
                return (matched: [DocumentRevision](), isOrdered: false, usedIndex: false)
            }
            var matched: [DocumentRevision] = []
            for docRow in try Self.candidates(query, store: store, hasText: parsed.hasText) {
                guard let row = try store.sql({ () throws(SQLiteError) in try store.winner(docRow: docRow) }),
                    !row.isDeleted
                else { continue }
                let revision = try store.load(row)
                guard SelectorMatcher.matches(parsed, Self.queryable(revision)) else { continue }
                matched.append(revision)
                if query.isOrdered, matched.count >= wanted { break }
            }
            return (matched: matched, isOrdered: query.isOrdered, usedIndex: true)
        }
        var matched = indexed.matched
        if !indexed.usedIndex { matched = try await scan(parsed, stopAfter: sort.isEmpty ? wanted : nil) }
        if !sort.isEmpty, !indexed.isOrdered { Self.sort(&matched, by: sort) }
        let page = matched.dropFirst(skip).prefix(limit)
        guard let fields else { return Array(page) }
        return page.map { revision in
            var projected = revision
            projected.body = revision.body.filter { fields.contains($0.key) }
            return projected
        }
    }

    /// How ``find(selector:fields:sort:skip:limit:)`` will answer `selector` with `sort`: the indexes that narrow
    /// the candidates and order them, or a full scan.
    ///
    /// - Throws: ``DatastoreError/Code/invalidQuery`` as `find` would.
    public func explain(selector: [String: JSONValue], sort: [SortField] = []) async throws(DatastoreError) -> QueryPlan
    {
        let parsed = try SelectorParser.parse(selector)
        return try await withIndexes(catchUp: false) { _, indexes throws(DatastoreError) in
            try QueryPlanner(indexes: indexes).plan(parsed, sort: sort)
        }
    }

    /// Every live document in ID order, matched in memory; stops after `stopAfter` matches when given. Pages of
    /// 500 documents by key, one executor job each, so writers are not held off for the whole scan.
    private func scan(_ selector: Selector, stopAfter: Int?) async throws(DatastoreError) -> [DocumentRevision] {
        var matched: [DocumentRevision] = []
        var cursor: String?
        while true {
            let after = cursor
            let page = try await read { store throws(DatastoreError) in
                var revisions: [DocumentRevision] = []
                for row in try store.sql({ () throws(SQLiteError) in try store.winners(after: after, limit: 500) }) {
                    revisions.append(try store.load(row))
                }
                return revisions
            }
            for revision in page where SelectorMatcher.matches(selector, Self.queryable(revision)) {
                matched.append(revision)
                if let stopAfter, matched.count >= stopAfter { return matched }
            }
            guard page.count == 500, let last = page.last else { return matched }
            cursor = last.docID
        }
    }

    /// The candidate document rows, in the query's order. A malformed `$text` search is the caller's mistake.
    private static func candidates(
        _ query: QueryPlanner.Query,
        store: RevisionStore,
        hasText: Bool
    ) throws(DatastoreError) -> [Int64] {
        do {
            let statement = try store.connection.prepare(query.sql)
            for (offset, value) in query.binds.enumerated() { try value.bind(to: statement, at: Int32(offset + 1)) }
            var rows: [Int64] = []
            while try statement.step() { rows.append(statement.int64(at: 0)) }
            return rows
        } catch {
            if hasText, error.code == .error {
                throw DatastoreError(.invalidQuery, "the $text search is malformed: \(error.message.prefix(200))")
            }
            throw DatastoreError(storage: error)
        }
    }

    private static func sort(_ revisions: inout [DocumentRevision], by sort: [SortField]) {
        let paths = sort.map { IndexStore.path($0.field) }
        revisions.sort { lhs, rhs in
            let (left, right) = (queryable(lhs), queryable(rhs))
            for (key, path) in zip(sort, paths) {
                let a = SelectorMatcher.lookup(path, in: .object(left))
                let b = SelectorMatcher.lookup(path, in: .object(right))
                if SelectorMatcher.sortOrder(a, b) { return !key.descending }
                if SelectorMatcher.sortOrder(b, a) { return key.descending }
            }
            return lhs.docID < rhs.docID
        }
    }

    /// The body with `_id` and `_rev`, so selectors can name them.
    private static func queryable(_ revision: DocumentRevision) -> [String: JSONValue] {
        var body = revision.body
        body["_id"] = .string(revision.docID)
        body["_rev"] = .string(revision.revID)
        return body
    }
}

extension Selector {
    /// Whether a `$text` clause appears (only ever under `$and`s).
    var hasText: Bool {
        switch self {
        case .text: true
        case .and(let parts): parts.contains(where: \.hasText)
        default: false
        }
    }
}
