// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Turns a parsed selector and sort into SQL over the query indexes: which documents can match (a superset the
/// matcher then checks) and, when every sort field is indexed, their order.
///
/// Each translated condition becomes `d.doc_id IN (SELECT doc_id FROM query_values WHERE …)` on its own, so
/// several conditions on one array field stay independent, as the matcher's any-element rule needs. `$and` joins
/// them with AND; `$or` with OR only when every branch narrows, else it narrows nothing. `$ne`, `$nin`, `$not` and
/// `$nor` never narrow (they match documents without the field). `_id` uses the document table.
struct QueryPlanner {
    /// A WHERE condition over `docs d`, its bound values in order, and the index names it uses.
    struct Narrowing {
        var condition: String
        var binds: [IndexValue]
        var indexes: Set<String>
    }

    /// The candidate query: document rows in result order.
    struct Query {
        var sql: String
        var binds: [IndexValue]
        var plan: QueryPlan
        /// Whether the rows come in the requested order (document ID order when there is no sort), so matching
        /// may stop once the page is full.
        var isOrdered: Bool
    }

    private let fields: [String: (index: StoredIndex, field: Int)]
    private let jsonIndexes: [StoredIndex]
    private let textIndex: StoredIndex?

    /// Fields map to the widest index holding them (as CDTQ prefers the index covering most of a query).
    init(indexes: [StoredIndex]) {
        let jsonIndexes = indexes.filter { $0.definition.kind == .json }.sorted {
            ($0.definition.fields.count, $1.definition.name) > ($1.definition.fields.count, $0.definition.name)
        }
        var fields: [String: (index: StoredIndex, field: Int)] = [:]
        for index in jsonIndexes {
            for (offset, field) in index.definition.fields.enumerated() where fields[field] == nil {
                fields[field] = (index, offset)
            }
        }
        self.fields = fields
        self.jsonIndexes = jsonIndexes
        self.textIndex = indexes.first { $0.definition.kind == .text }
    }

    /// The query for `selector` and `sort`, or nil when only a full scan can answer it.
    ///
    /// - Throws: ``DatastoreError/Code/invalidQuery`` for `$text` without a text index.
    func query(_ selector: Selector, sort: [SortField]) throws(DatastoreError) -> Query? {
        let narrowing = try narrow(selector)
        let sortFields = sortEntries(sort)
        let sortedByIndex = !sort.isEmpty && sortFields.count == sort.count
        guard narrowing != nil || sortedByIndex else { return nil }

        var sql = "SELECT d.doc_id FROM docs d"
        var binds: [IndexValue] = []
        var order: [String] = []
        if sortedByIndex {
            for (offset, (key, entry)) in zip(sort, sortFields).enumerated() {
                let alias = "s\(offset)"
                let direction = key.descending ? "DESC" : "ASC"
                sql += " JOIN query_values \(alias) ON \(alias).doc_id = d.doc_id"
                sql += " AND \(alias).index_id = ? AND \(alias).field = ?"
                binds += [.integer(entry.index.id), .integer(Int64(entry.field))]
                order.append("min(\(alias).whole) \(direction)")
                order.append("min(CASE WHEN \(alias).whole < 5 THEN \(alias).value END) \(direction)")
            }
        }
        if let narrowing {
            sql += " WHERE \(narrowing.condition)"
            binds += narrowing.binds
        }
        if sortedByIndex { sql += " GROUP BY d.doc_id" }
        order.append("d.docid")
        sql += " ORDER BY \(order.joined(separator: ", "))"

        let plan = QueryPlan(
            indexes: (narrowing?.indexes).map { $0.sorted() } ?? [],
            sortIndexes: sortedByIndex ? Array(Set(sortFields.map(\.index.definition.name))).sorted() : [],
            isFullScan: narrowing == nil
        )
        return Query(sql: sql, binds: binds, plan: plan, isOrdered: sort.isEmpty || sortedByIndex)
    }

    /// Where each sort field's entries are: one index holding them all when there is one (CDTQ's rule), else each
    /// field's own.
    private func sortEntries(_ sort: [SortField]) -> [(index: StoredIndex, field: Int)] {
        for index in jsonIndexes {
            let offsets = sort.compactMap { key in index.definition.fields.firstIndex(of: key.field) }
            if offsets.count == sort.count { return offsets.map { (index, $0) } }
        }
        return sort.compactMap { fields[$0.field] }
    }

    /// The plan ``query(_:sort:)`` would follow.
    func plan(_ selector: Selector, sort: [SortField]) throws(DatastoreError) -> QueryPlan {
        try query(selector, sort: sort)?.plan ?? QueryPlan(indexes: [], sortIndexes: [], isFullScan: true)
    }

    // MARK: Narrowing

    private func narrow(_ selector: Selector) throws(DatastoreError) -> Narrowing? {
        switch selector {
        case .and(let parts):
            var narrowed: [Narrowing] = []
            for part in parts { if let narrowing = try narrow(part) { narrowed.append(narrowing) } }
            return Self.join(narrowed, with: "AND")
        case .or(let parts):
            var narrowed: [Narrowing] = []
            for part in parts {
                guard let narrowing = try narrow(part) else { return nil }
                narrowed.append(narrowing)
            }
            return Self.join(narrowed, with: "OR")
        case .nor, .not:
            return nil
        case .text(let search):
            guard let textIndex else {
                throw DatastoreError(.invalidQuery, "$text needs a text index: ensureIndexed(fields:name:type: .text)")
            }
            return Narrowing(
                condition: "d.doc_id IN (SELECT rowid FROM query_text WHERE query_text MATCH ?)",
                binds: [.text(search)],
                indexes: [textIndex.definition.name]
            )
        case .field(let path, let conditions):
            let name = path.joined(separator: ".")
            if name == "_id" { return Self.join(conditions.compactMap(Self.identifier), with: "AND") }
            guard let (index, field) = fields[name] else { return nil }
            let entries = conditions.compactMap(Self.entry)
            guard !entries.isEmpty else { return nil }
            func rows(_ parts: [(condition: String, binds: [IndexValue])], arraysOnly: Bool) -> Narrowing {
                // `whole = 5` is literal so SQLite can use the partial index of array elements.
                let restriction = arraysOnly ? "whole = 5 AND " : ""
                return Narrowing(
                    condition: "d.doc_id IN (SELECT doc_id FROM query_values WHERE index_id = ? AND field = ? AND "
                        + restriction + parts.map(\.condition).joined(separator: " AND ") + ")",
                    binds: [.integer(index.id), .integer(Int64(field))] + parts.flatMap(\.binds),
                    indexes: [index.definition.name]
                )
            }
            guard entries.count > 1 else { return rows(entries, arraysOnly: false) }
            // Several conditions on one field: a scalar has one row, which must meet them all (one index range
            // instead of several); an array meets each with any element, so array rows are checked one condition
            // at a time.
            let perElement = Self.join(entries.map { rows([$0], arraysOnly: true) }, with: "AND")
            return Self.join([rows(entries, arraysOnly: false)] + (perElement.map { [$0] } ?? []), with: "OR")
        }
    }

    private static func join(_ parts: [Narrowing], with operator: String) -> Narrowing? {
        guard parts.count > 1 else { return parts.first }
        return Narrowing(
            condition: "(" + parts.map(\.condition).joined(separator: " \(`operator`) ") + ")",
            binds: parts.flatMap(\.binds),
            indexes: parts.reduce(into: Set<String>()) { $0.formUnion($1.indexes) }
        )
    }

    /// The index rows that a document satisfying `condition` must have, as a condition on `rank`, `value` and
    /// `whole`; nil when the condition cannot narrow.
    private static func entry(_ condition: Selector.Condition) -> (condition: String, binds: [IndexValue])? {
        switch condition {
        case .eq(let operand): return equal(operand)
        case .in(let operands):
            guard !operands.isEmpty else { return ("0", []) }
            var parts: [(condition: String, binds: [IndexValue])] = []
            for operand in operands {
                guard let part = equal(operand) else { return nil }
                parts.append(part)
            }
            return ("(" + parts.map(\.condition).joined(separator: " OR ") + ")", parts.flatMap(\.binds))
        case .lt(let operand): return range(operand, "<")
        case .lte(let operand): return range(operand, "<=")
        case .gt(let operand): return range(operand, ">")
        case .gte(let operand): return range(operand, ">=")
        case .exists(let flag): return (flag ? "rank > 0" : "rank = 0", [])
        case .size: return ("whole = 5", [])
        case .regex: return ("rank = 4", [])
        case .mod: return ("rank = 3", [])
        case .elemMatch: return ("rank = 6 AND whole = 5", [])
        case .all(let operands):
            guard let first = operands.first else { return nil }
            return equal(first)
        case .ne, .nin, .not: return nil
        }
    }

    private static func equal(_ operand: JSONValue) -> (condition: String, binds: [IndexValue])? {
        let rank = SelectorMatcher.rank(operand)
        switch operand {
        case .null: return ("rank = 1", [])
        case .array, .object: return ("(rank = ? OR whole = ?)", [.integer(rank), .integer(rank)])
        default:
            guard let value = IndexValue(operand) else { return nil }
            return ("rank = ? AND value = ?", [.integer(rank), value])
        }
    }

    private static func range(_ operand: JSONValue, _ comparison: String) -> (condition: String, binds: [IndexValue])? {
        guard let value = IndexValue(operand) else { return nil }
        return ("rank = ? AND value \(comparison) ?", [.integer(SelectorMatcher.rank(operand)), value])
    }

    /// `_id` conditions on the document table.
    private static func identifier(_ condition: Selector.Condition) -> Narrowing? {
        let (comparison, operand): (String, JSONValue)
        switch condition {
        case .eq(let value): (comparison, operand) = ("=", value)
        case .lt(let value): (comparison, operand) = ("<", value)
        case .lte(let value): (comparison, operand) = ("<=", value)
        case .gt(let value): (comparison, operand) = (">", value)
        case .gte(let value): (comparison, operand) = (">=", value)
        case .in(let operands):
            let ids = operands.compactMap(\.stringValue)
            guard ids.count == operands.count else { return nil }
            guard !ids.isEmpty else { return Narrowing(condition: "0", binds: [], indexes: ["_id"]) }
            let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
            return Narrowing(condition: "d.docid IN (\(placeholders))", binds: ids.map { .text($0) }, indexes: ["_id"])
        default: return nil
        }
        guard case .string(let id) = operand else { return nil }
        return Narrowing(condition: "d.docid \(comparison) ?", binds: [.text(id)], indexes: ["_id"])
    }
}
