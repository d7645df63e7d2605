// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

/// The match/exclude/range logic of `POST /v2/search`, as a pure value: records in, decision out.
/// Not Sendable: built and used within one request.
struct SearchV2Filter {
    private struct Clause {
        var isAnd: Bool
        var conditions: [(StoredRecord) -> Bool]
    }

    private let match: [Clause]
    private let exclude: [Clause]
    private let range: SearchV2Request.Range?

    init(_ request: SearchV2Request) throws {
        match = try (request.match ?? []).map(Self.clause)
        exclude = try (request.exclude ?? []).map(Self.clause)
        range = request.range
        if let key = range?.rangeKey, !["CREATED", "MODIFIED"].contains(key.uppercased()) {
            throw ServerError.badRequest("range_key must be CREATED or MODIFIED")
        }
    }

    /// Match clauses are OR-ed (none = everything); exclude clauses are OR-ed and win; the range bounds are
    /// exclusive.
    func accepts(_ record: StoredRecord) -> Bool {
        if let range {
            let time = range.rangeKey?.uppercased() == "MODIFIED" ? record.lastModified : record.created
            if let after = range.after, !(time > after) { return false }
            if let before = range.before, !(time < before) { return false }
        }
        let matched = match.isEmpty || match.contains { Self.evaluate($0, record, emptyMeans: true) }
        return matched && !exclude.contains { Self.evaluate($0, record, emptyMeans: false) }
    }

    private static func evaluate(_ clause: Clause, _ record: StoredRecord, emptyMeans: Bool) -> Bool {
        if clause.conditions.isEmpty { return emptyMeans }
        return clause.isAnd ? clause.conditions.allSatisfy { $0(record) } : clause.conditions.contains { $0(record) }
    }

    private static func clause(_ wire: SearchV2Request.Clause) throws -> Clause {
        let condition = (wire.condition ?? "OR").uppercased()
        guard condition == "OR" || condition == "AND" else {
            throw ServerError.badRequest("condition must be OR or AND")
        }
        let terms = wire.terms ?? .init()
        let strategy = wire.strategy
        var conditions: [(StoredRecord) -> Bool] = []
        func add(_ values: [String]?, lowercased: Bool = false, _ field: @escaping (StoredRecord) -> String) throws {
            for value in values ?? [] {
                let matcher = try TermMatcher(strategy: strategy, term: lowercased ? value.lowercased() : value)
                conditions.append { matcher.matches(field($0)) }
            }
        }
        try add(terms.writerIDs, lowercased: true) { $0.writerID }
        try add(terms.userIDs, lowercased: true) { $0.userID }
        try add(terms.recordIDs, lowercased: true) { $0.recordID }
        try add(terms.contentTypes) { $0.type }
        for key in terms.keys ?? [] {
            let matcher = try TermMatcher(strategy: strategy, term: key)
            conditions.append { record in record.plain.keys.contains { matcher.matches($0) } }
        }
        for value in terms.values ?? [] {
            let matcher = try TermMatcher(strategy: strategy, term: value)
            conditions.append { record in record.plain.values.contains { matcher.matches($0) } }
        }
        for (key, value) in terms.tags ?? [:] {
            let keyMatcher = try TermMatcher(strategy: strategy, term: key)
            let valueMatcher = try TermMatcher(strategy: strategy, term: value)
            conditions.append { record in
                record.plain.contains { keyMatcher.matches($0.key) && valueMatcher.matches($0.value) }
            }
        }
        return Clause(isAnd: condition == "AND", conditions: conditions)
    }
}
