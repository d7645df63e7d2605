// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomWire

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
    /// $size $all $elemMatch $not`, several on one field, implicit `$eq` and `$and`, dotted paths, and CDTQ's array
    /// semantics (a condition on an array holds when it holds for any element). This version answers every query
    /// by scanning the live documents in pages; indexes come next.
    ///
    /// - Parameters:
    ///   - selector: the Mango selector, such as `["age": .object(["$gt": .number(12)])]`.
    ///   - fields: top-level fields to keep in each returned body (all when nil).
    ///   - sort: sort keys, applied in order (CouchDB's collation across types; missing fields first).
    ///   - skip: how many matches to leave out first.
    ///   - limit: at most this many results; at most ``DatastoreLimits/maximumBatchCount`` (the default).
    /// - Throws: ``DatastoreError/Code/invalidQuery`` naming the offending part (unknown operator, wrong argument,
    ///   too deep or too many clauses, `$text`/`$regex` not supported yet); ``DatastoreError/Code/invalidArgument``
    ///   for negative paging.
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
        let sortPaths = sort.map { $0.field.split(separator: ".").map(String.init) }
        var matched: [DocumentRevision] = []
        var offset = 0
        while true {
            let page = try await allDocuments(offset: offset, limit: 1000)
            offset += page.count
            for revision in page where SelectorMatcher.matches(parsed, Self.queryable(revision)) {
                matched.append(revision)
                // Without a sort, stop as soon as the page asked for is complete.
                if sort.isEmpty, matched.count >= skip + limit { break }
            }
            if page.count < 1000 || (sort.isEmpty && matched.count >= skip + limit) { break }
        }
        if !sort.isEmpty {
            matched.sort { lhs, rhs in
                let (left, right) = (Self.queryable(lhs), Self.queryable(rhs))
                for (key, path) in zip(sort, sortPaths) {
                    let a = SelectorMatcher.lookup(path, in: .object(left))
                    let b = SelectorMatcher.lookup(path, in: .object(right))
                    if SelectorMatcher.sortOrder(a, b) { return !key.descending }
                    if SelectorMatcher.sortOrder(b, a) { return key.descending }
                }
                return lhs.docID < rhs.docID
            }
        }
        let page = matched.dropFirst(skip).prefix(limit)
        guard let fields else { return Array(page) }
        return page.map { revision in
            var projected = revision
            projected.body = revision.body.filter { fields.contains($0.key) }
            return projected
        }
    }

    /// How ``find(selector:fields:sort:skip:limit:)`` will answer `selector`: `"scan"` in this version.
    ///
    /// - Throws: ``DatastoreError/Code/invalidQuery`` as `find` would.
    public func explain(selector: [String: JSONValue]) throws(DatastoreError) -> String {
        _ = try SelectorParser.parse(selector)
        return "scan"
    }

    /// The body with `_id` and `_rev`, so selectors can name them.
    private static func queryable(_ revision: DocumentRevision) -> [String: JSONValue] {
        var body = revision.body
        body["_id"] = .string(revision.docID)
        body["_rev"] = .string(revision.revID)
        return body
    }
}
