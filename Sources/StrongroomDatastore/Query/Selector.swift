// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomRegex

/// A parsed Cloudant Query (Mango) selector.
indirect enum Selector: Sendable, Hashable {
    case and([Selector])
    case or([Selector])
    case nor([Selector])
    case not(Selector)
    /// Conditions on one field (a dotted path), all of which must hold.
    case field([String], [Condition])
    /// A full-text search (`{"$text": {"$search": …}}`) answered by the text index; allowed only where every
    /// enclosing clause is an `$and`, so the index's matches bound the result.
    case text(String)

    /// One operator applied to a field's value.
    enum Condition: Sendable, Hashable {
        case eq(JSONValue), ne(JSONValue), lt(JSONValue), lte(JSONValue), gt(JSONValue), gte(JSONValue)
        case exists(Bool)
        case `in`([JSONValue]), nin([JSONValue])
        case mod(divisor: Int64, remainder: Int64)
        case size(Int)
        case all([JSONValue])
        case elemMatch(Selector)
        case not([Condition])
        case regex(RegexPattern)
    }
}

/// A `$regex` operand: its source (for equality) and its compiled RE2 program, which matches in time linear in the
/// value.
struct RegexPattern: Sendable, Hashable {
    let source: String
    let program: LinearRegex

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.source == rhs.source }
    func hash(into hasher: inout Hasher) { hasher.combine(source) }
}

/// Turns a selector object into a ``Selector``; every error names the part that is wrong.
struct SelectorParser {
    static let maximumDepth = 32
    static let maximumClauses = 256
    /// The longest `$regex` pattern and `$text` search, in UTF-8 bytes.
    static let maximumPatternBytes = 4096

    private var clauses = 0
    private var textClauses = 0

    static func parse(_ selector: [String: JSONValue]) throws(DatastoreError) -> Selector {
        var parser = SelectorParser()
        return try parser.object(selector, depth: 0, conjunctive: true)
    }

    private static func invalid(_ message: String) -> DatastoreError {
        DatastoreError(.invalidQuery, message)
    }

    /// Parses one selector object; `conjunctive` is true while every enclosing clause is an `$and`.
    private mutating func object(
        _ selector: [String: JSONValue],
        depth: Int,
        conjunctive: Bool
    ) throws(DatastoreError) -> Selector {
        guard depth < Self.maximumDepth else {
            throw Self.invalid("the selector nests deeper than \(Self.maximumDepth)")
        }
        var parts: [Selector] = []
        for (key, value) in selector.sorted(by: { $0.key < $1.key }) {
            clauses += 1
            guard clauses <= Self.maximumClauses else {
                throw Self.invalid("the selector has more than \(Self.maximumClauses) clauses")
            }
            switch key {
            case "$and", "$or", "$nor":
                guard case .array(let items) = value, !items.isEmpty else {
                    throw Self.invalid("\(key) takes a non-empty array of selectors")
                }
                var children: [Selector] = []
                for item in items {
                    guard case .object(let child) = item else { throw Self.invalid("\(key) takes selector objects") }
                    children.append(try object(child, depth: depth + 1, conjunctive: conjunctive && key == "$and"))
                }
                parts.append(key == "$and" ? .and(children) : key == "$or" ? .or(children) : .nor(children))
            case "$not":
                guard case .object(let child) = value else { throw Self.invalid("$not takes a selector object") }
                parts.append(.not(try object(child, depth: depth + 1, conjunctive: false)))
            case "$text":
                parts.append(try text(value, conjunctive: conjunctive))
            case let key where key.hasPrefix("$"):
                throw Self.invalid("unknown or misplaced operator \(key.prefix(32))")
            default:
                let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
                guard !path.contains(where: \.isEmpty) else { throw Self.invalid("bad field path \(key.prefix(64))") }
                parts.append(.field(path, try conditions(value, field: key, depth: depth + 1)))
            }
        }
        return parts.count == 1 ? parts[0] : .and(parts)
    }

    private mutating func conditions(
        _ value: JSONValue,
        field: String,
        depth: Int
    ) throws(DatastoreError) -> [Selector.Condition] {
        guard depth < Self.maximumDepth else {
            throw Self.invalid("the selector nests deeper than \(Self.maximumDepth)")
        }
        guard case .object(let operators) = value, operators.keys.contains(where: { $0.hasPrefix("$") }) else {
            return [.eq(value)]  // implicit $eq
        }
        var result: [Selector.Condition] = []
        for (name, argument) in operators.sorted(by: { $0.key < $1.key }) {
            clauses += 1
            guard clauses <= Self.maximumClauses else {
                throw Self.invalid("the selector has more than \(Self.maximumClauses) clauses")
            }
            switch name {
            case "$eq": result.append(.eq(argument))
            case "$ne": result.append(.ne(argument))
            case "$lt": result.append(.lt(try Self.comparable(argument, name, field)))
            case "$lte": result.append(.lte(try Self.comparable(argument, name, field)))
            case "$gt": result.append(.gt(try Self.comparable(argument, name, field)))
            case "$gte": result.append(.gte(try Self.comparable(argument, name, field)))
            case "$exists":
                guard case .bool(let flag) = argument else {
                    throw Self.invalid("$exists on \(field) takes true or false")
                }
                result.append(.exists(flag))
            case "$in", "$nin", "$all":
                guard case .array(let items) = argument, items.count <= Self.maximumClauses else {
                    throw Self.invalid("\(name) on \(field) takes an array of at most \(Self.maximumClauses) values")
                }
                result.append(name == "$in" ? .in(items) : name == "$nin" ? .nin(items) : .all(items))
            case "$mod":
                // CDTQ truncates decimals: [5.6, 4.2] is [5, 4].
                guard case .array(let pair) = argument, pair.count == 2, let divisor = Self.truncated(pair[0]),
                    let remainder = Self.truncated(pair[1]), divisor != 0, divisor != Int64.min
                else { throw Self.invalid("$mod on \(field) takes [divisor, remainder], numbers, divisor not 0") }
                result.append(.mod(divisor: divisor, remainder: remainder))
            case "$size":
                guard let size = argument.integerValue, (0...Int64(Int32.max)).contains(size) else {
                    throw Self.invalid("$size on \(field) takes a non-negative integer")
                }
                result.append(.size(Int(size)))
            case "$elemMatch":
                guard case .object(let child) = argument else {
                    throw Self.invalid("$elemMatch on \(field) takes a selector object")
                }
                result.append(.elemMatch(try object(child, depth: depth + 1, conjunctive: false)))
            case "$not":
                result.append(.not(try conditions(argument, field: field, depth: depth + 1)))
            case "$regex":
                guard case .string(let source) = argument, source.utf8.count <= Self.maximumPatternBytes else {
                    throw Self.invalid("$regex on \(field) takes a string of at most \(Self.maximumPatternBytes) bytes")
                }
                guard let program = LinearRegex(pattern: source) else {
                    throw Self.invalid("$regex on \(field) is not a valid RE2 pattern (or needs too much memory)")
                }
                result.append(.regex(RegexPattern(source: source, program: program)))
            case "$type", "$text":
                throw Self.invalid("\(name) is not supported (on \(field))")
            default:
                throw Self.invalid("unknown operator \(name.prefix(32)) on \(field.prefix(64))")
            }
        }
        return result
    }

    /// `{"$search": "…"}`: at most one per selector, only under `$and`s.
    private mutating func text(_ value: JSONValue, conjunctive: Bool) throws(DatastoreError) -> Selector {
        guard conjunctive else {
            throw Self.invalid("$text may appear only at the top level or inside $and, not under $or, $nor or $not")
        }
        textClauses += 1
        guard textClauses == 1 else { throw Self.invalid("a selector may hold one $text clause") }
        guard case .object(let members) = value, members.count == 1, case .string(let search)? = members["$search"],
            !search.isEmpty, search.utf8.count <= Self.maximumPatternBytes
        else {
            throw Self.invalid("$text takes {\"$search\": \"terms\"}, at most \(Self.maximumPatternBytes) bytes")
        }
        return .text(search)
    }

    /// A number truncated towards zero, as CDTQ's `$mod` does; nil when it is not a number or out of range.
    static func truncated(_ value: JSONValue) -> Int64? {
        guard case .number(let number) = value, number.isFinite else { return nil }
        let whole = number.rounded(.towardZero)
        guard whole >= -9.223_372_036_854_775_808e18, whole < 9.223_372_036_854_775_808e18 else { return nil }
        return Int64(whole)
    }

    /// Range operators compare numbers with numbers and strings with strings (as CDTQ).
    private static func comparable(
        _ value: JSONValue,
        _ name: String,
        _ field: String
    ) throws(DatastoreError) -> JSONValue {
        switch value {
        case .number, .string: return value
        default: throw invalid("\(name) on \(field) takes a number or a string")
        }
    }
}
