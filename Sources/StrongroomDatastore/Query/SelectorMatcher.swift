// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomRegex

/// Evaluates a ``Selector`` against a document, with CDTQ's semantics: a condition on an array field holds when it
/// holds for the array or for any element (CDTQ indexes one row per element); range operators compare numbers with
/// numbers and strings with strings only, strings by Unicode code point (the order SQLite's index uses);
/// `$ne` and `$nin` also match documents without the field. A `$text` clause holds here: the text index has already
/// narrowed the candidates to its matches.
enum SelectorMatcher {
    static func matches(_ selector: Selector, _ document: [String: JSONValue]) -> Bool {
        switch selector {
        case .and(let parts): return parts.allSatisfy { matches($0, document) }
        case .or(let parts): return parts.contains { matches($0, document) }
        case .nor(let parts): return !parts.contains { matches($0, document) }
        case .not(let inner): return !matches(inner, document)
        case .text: return true
        case .field(let path, let conditions):
            let value = lookup(path, in: .object(document))
            return conditions.allSatisfy { holds($0, value) }
        }
    }

    /// The value at a dotted path, or nil when absent.
    static func lookup(_ path: [String], in value: JSONValue) -> JSONValue? {
        var current = value
        for component in path {
            guard case .object(let members) = current, let next = members[component] else { return nil }
            current = next
        }
        return current
    }

    private static func holds(_ condition: Selector.Condition, _ value: JSONValue?) -> Bool {
        switch condition {
        case .exists(let flag): return (value != nil) == flag
        case .ne(let operand): return !anyValue(value) { $0 == operand }
        case .nin(let operands): return !anyValue(value) { operands.contains($0) }
        case .not(let conditions): return !conditions.allSatisfy { holds($0, value) }
        case .size(let size):
            guard case .array(let items)? = value else { return false }
            return items.count == size
        case .all(let operands):
            guard case .array(let items)? = value else { return false }
            return operands.allSatisfy { items.contains($0) }
        case .elemMatch(let selector):
            guard case .array(let items)? = value else { return false }
            return items.contains { item in
                if case .object(let members) = item { return matches(selector, members) }
                return false
            }
        case .eq(let operand): return anyValue(value) { $0 == operand }
        case .in(let operands): return anyValue(value) { operands.contains($0) }
        case .lt(let operand): return anyValue(value) { compare($0, operand).map { $0 < 0 } ?? false }
        case .lte(let operand): return anyValue(value) { compare($0, operand).map { $0 <= 0 } ?? false }
        case .gt(let operand): return anyValue(value) { compare($0, operand).map { $0 > 0 } ?? false }
        case .gte(let operand): return anyValue(value) { compare($0, operand).map { $0 >= 0 } ?? false }
        case .regex(let pattern):
            return anyValue(value) { candidate in
                guard case .string(let text) = candidate else { return false }
                return pattern.program.occurs(in: text)
            }
        case .mod(let divisor, let remainder):
            return anyValue(value) { candidate in
                guard let integer = SelectorParser.truncated(candidate) else { return false }
                // remainderReportingOverflow: Int64.min % -1 would trap.
                return integer.remainderReportingOverflow(dividingBy: divisor).partialValue == remainder
            }
        }
    }

    /// Whether `test` holds for the value or, for an array, for any of its elements.
    private static func anyValue(_ value: JSONValue?, _ test: (JSONValue) -> Bool) -> Bool {
        guard let value else { return false }
        if test(value) { return true }
        if case .array(let items) = value { return items.contains(where: test) }
        return false
    }

    /// -1, 0 or 1 for two numbers or two strings; nil for other pairs (they never match a range).
    private static func compare(_ lhs: JSONValue, _ rhs: JSONValue) -> Int? {
        switch (lhs, rhs) {
        case (.number(let a), .number(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.string(let a), .string(let b)): return precedes(a, b) ? -1 : (precedes(b, a) ? 1 : 0)
        default: return nil
        }
    }

    /// CouchDB's collation order across types, for sorting: missing < null < false < true < numbers < strings <
    /// arrays < objects.
    static func sortOrder(_ lhs: JSONValue?, _ rhs: JSONValue?) -> Bool {
        switch (lhs, rhs) {
        case (.bool(let a)?, .bool(let b)?): return !a && b
        case (.number(let a)?, .number(let b)?): return a < b
        case (.string(let a)?, .string(let b)?): return precedes(a, b)
        default: return rank(lhs) < rank(rhs)
        }
    }

    /// A value's type in collation order (0 for a missing field); the query index stores it beside each value.
    static func rank(_ value: JSONValue?) -> Int64 {
        switch value {
        case nil: 0
        case .null?: 1
        case .bool?: 2
        case .number?: 3
        case .string?: 4
        case .array?: 5
        case .object?: 6
        }
    }

    /// String order by Unicode code point (UTF-8 bytes), as SQLite's BINARY collation compares index values.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool { lhs.utf8.lexicographicallyPrecedes(rhs.utf8) }
}
