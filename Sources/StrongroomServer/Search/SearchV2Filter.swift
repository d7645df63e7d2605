// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomWire

/// The match/exclude/range logic of `POST /v2/search`, as a pure value: records in, decision out. It is
/// `Sendable`, so matching runs on a thread pool rather than on the cooperative pool that serves requests.
struct SearchV2Filter: Sendable {
    /// The most clauses (match + exclude) one search may have.
    static let maximumClauses = 32
    /// The most terms (every ID, type, key, value and tag, across clauses) one search may have.
    static let maximumTerms = 256

    private enum Field: Sendable {
        case writerID, userID, recordID, type, plainKey, plainValue
    }

    private enum Condition: Sendable {
        case field(Field, TermMatcher)
        case tag(key: TermMatcher, value: TermMatcher)
    }

    private struct Clause: Sendable {
        var isAnd: Bool
        var conditions: [Condition]
    }

    private let match: [Clause]
    private let exclude: [Clause]
    private let range: SearchV2Request.Range?

    init(_ request: SearchV2Request) throws {
        let clauses = (request.match ?? []) + (request.exclude ?? [])
        guard clauses.count <= Self.maximumClauses else {
            throw ServerError.badRequest("a search has at most \(Self.maximumClauses) clauses")
        }
        let terms = clauses.reduce(0) { total, clause in
            let terms = clause.terms ?? .init()
            return total
                + [terms.writerIDs, terms.userIDs, terms.recordIDs, terms.contentTypes, terms.keys, terms.values]
                .reduce(0) { $0 + ($1?.count ?? 0) } + (terms.tags?.count ?? 0)
        }
        guard terms <= Self.maximumTerms else {
            throw ServerError.badRequest("a search has at most \(Self.maximumTerms) terms")
        }
        match = try (request.match ?? []).map(Self.clause)
        exclude = try (request.exclude ?? []).map(Self.clause)
        range = request.range
        if let key = range?.rangeKey, !["CREATED", "MODIFIED"].contains(key.uppercased()) {
            throw ServerError.badRequest("range_key must be CREATED or MODIFIED")
        }
    }

    /// The records of `batch` the search accepts, in order, charging the work to `budget`.
    func accepted(_ batch: [StoredRecord], budget: inout SearchBudget) throws -> [StoredRecord] {
        var accepted: [StoredRecord] = []
        for record in batch where try accepts(record, budget: &budget) { accepted.append(record) }
        return accepted
    }

    /// Match clauses are OR-ed (none = everything); exclude clauses are OR-ed and win; the range bounds are
    /// exclusive.
    func accepts(_ record: StoredRecord, budget: inout SearchBudget) throws -> Bool {
        try budget.charge(64)
        if let range {
            let time = range.rangeKey?.uppercased() == "MODIFIED" ? record.lastModified : record.created
            if let after = range.after, !(time > after) { return false }
            if let before = range.before, !(time < before) { return false }
        }
        var matched = match.isEmpty
        for clause in match where !matched {
            matched = try Self.evaluate(clause, record, emptyMeans: true, budget: &budget)
        }
        guard matched else { return false }
        for clause in exclude where try Self.evaluate(clause, record, emptyMeans: false, budget: &budget) {
            return false
        }
        return true
    }

    private static func evaluate(
        _ clause: Clause,
        _ record: StoredRecord,
        emptyMeans: Bool,
        budget: inout SearchBudget
    ) throws -> Bool {
        if clause.conditions.isEmpty { return emptyMeans }
        for condition in clause.conditions {
            let holds = try evaluate(condition, record, budget: &budget)
            if clause.isAnd && !holds { return false }
            if !clause.isAnd && holds { return true }
        }
        return clause.isAnd
    }

    private static func evaluate(
        _ condition: Condition,
        _ record: StoredRecord,
        budget: inout SearchBudget
    ) throws
        -> Bool
    {
        func test(_ matcher: TermMatcher, _ value: String) throws -> Bool {
            try budget.charge(16 + value.utf8.count)
            return matcher.matches(value)
        }
        switch condition {
        case .field(.writerID, let matcher): return try test(matcher, record.writerID)
        case .field(.userID, let matcher): return try test(matcher, record.userID)
        case .field(.recordID, let matcher): return try test(matcher, record.recordID)
        case .field(.type, let matcher): return try test(matcher, record.type)
        case .field(.plainKey, let matcher): return try record.plain.keys.contains { try test(matcher, $0) }
        case .field(.plainValue, let matcher): return try record.plain.values.contains { try test(matcher, $0) }
        case .tag(let key, let value):
            return try record.plain.contains { try test(key, $0.key) && test(value, $0.value) }
        }
    }

    private static func clause(_ wire: SearchV2Request.Clause) throws -> Clause {
        let condition = (wire.condition ?? "OR").uppercased()
        guard condition == "OR" || condition == "AND" else {
            throw ServerError.badRequest("condition must be OR or AND")
        }
        let terms = wire.terms ?? .init()
        let strategy = wire.strategy
        var conditions: [Condition] = []
        func add(_ values: [String]?, _ field: Field, lowercased: Bool = false) throws {
            for value in values ?? [] {
                conditions.append(
                    .field(field, try TermMatcher(strategy: strategy, term: lowercased ? value.lowercased() : value))
                )
            }
        }
        try add(terms.writerIDs, .writerID, lowercased: true)
        try add(terms.userIDs, .userID, lowercased: true)
        try add(terms.recordIDs, .recordID, lowercased: true)
        try add(terms.contentTypes, .type)
        try add(terms.keys, .plainKey)
        try add(terms.values, .plainValue)
        for (key, value) in terms.tags ?? [:] {
            conditions.append(
                .tag(
                    key: try TermMatcher(strategy: strategy, term: key),
                    value: try TermMatcher(strategy: strategy, term: value)
                )
            )
        }
        return Clause(isAnd: condition == "AND", conditions: conditions)
    }
}
