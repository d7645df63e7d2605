// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomWire

/// A parsed Cloudant Query (Mango) selector.
indirect enum Selector: Sendable, Hashable {
    case and([Selector])
    case or([Selector])
    case nor([Selector])
    case not(Selector)
    /// Conditions on one field (a dotted path), all of which must hold.
    case field([String], [Condition])

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
    }
}

/// Turns a selector object into a ``Selector``; every error names the part that is wrong.
struct SelectorParser {
    static let maximumDepth = 32
    static let maximumClauses = 256

    private var clauses = 0

    static func parse(_ selector: [String: JSONValue]) throws(DatastoreError) -> Selector {
        var parser = SelectorParser()
        return try parser.object(selector, depth: 0)
    }

    private static func invalid(_ message: String) -> DatastoreError {
        DatastoreError(.invalidQuery, message)
    }

    private mutating func object(_ selector: [String: JSONValue], depth: Int) throws(DatastoreError) -> Selector {
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
                    children.append(try object(child, depth: depth + 1))
                }
                parts.append(key == "$and" ? .and(children) : key == "$or" ? .or(children) : .nor(children))
            case "$not":
                guard case .object(let child) = value else { throw Self.invalid("$not takes a selector object") }
                parts.append(.not(try object(child, depth: depth + 1)))
            case "$text":
                throw Self.invalid("$text needs a text index, which this version does not build yet")
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
                guard case .array(let pair) = argument, pair.count == 2, let divisor = pair[0].integerValue,
                    let remainder = pair[1].integerValue, divisor != 0, divisor != Int64.min
                else { throw Self.invalid("$mod on \(field) takes [divisor, remainder], integers, divisor not 0") }
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
                result.append(.elemMatch(try object(child, depth: depth + 1)))
            case "$not":
                result.append(.not(try conditions(argument, field: field, depth: depth + 1)))
            case "$regex", "$type", "$text":
                throw Self.invalid("\(name) is not supported (on \(field))")
            default:
                throw Self.invalid("unknown operator \(name.prefix(32)) on \(field.prefix(64))")
            }
        }
        return result
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
