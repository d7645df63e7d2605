// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomRegex

/// How a v2 search term is compared with a value. Every strategy takes time linear in the value (times a small
/// constant bounded by the term's length), so no term can stall the server.
enum TermMatcher: Sendable {
    /// The longest term accepted, in UTF-8 bytes.
    static let maximumTermLength = 1024

    case exact(String)
    /// Elasticsearch "AUTO" fuzziness: terms of 0–2 characters exact, 3–5 within 1 edit, longer within 2
    /// (Damerau–Levenshtein: insertions, deletions, substitutions and adjacent transpositions).
    case fuzzy([Character], allowedEdits: Int)
    /// `*` matches any run, `?` one character; the whole value must match. WILDCARD and REGEXP both run on RE2.
    case pattern(LinearRegex)

    /// - Throws: ``ServerError`` (400) for an unknown strategy, a term longer than ``maximumTermLength`` bytes or
    ///   an invalid (or too large) regular expression.
    init(strategy: String?, term: String) throws {
        guard term.utf8.count <= Self.maximumTermLength else {
            throw ServerError.badRequest("a search term is at most \(Self.maximumTermLength) bytes")
        }
        switch (strategy ?? "EXACT").uppercased() {
        case "EXACT": self = .exact(term)
        case "FUZZY":
            let characters = Array(term)
            self = .fuzzy(characters, allowedEdits: characters.count <= 2 ? 0 : (characters.count <= 5 ? 1 : 2))
        case "WILDCARD":
            guard let glob = LinearRegex(glob: term) else {
                throw ServerError.badRequest("the WILDCARD term is too complex")
            }
            self = .pattern(glob)
        case "REGEXP":
            guard let regex = LinearRegex(pattern: term) else {
                throw ServerError.badRequest(
                    "the REGEXP term is not a valid regular expression (RE2 syntax, no backreferences) or is too complex"
                )
            }
            self = .pattern(regex)
        default: throw ServerError.badRequest("strategy must be EXACT, FUZZY, WILDCARD or REGEXP")
        }
    }

    func matches(_ value: String) -> Bool {
        switch self {
        case .exact(let term):
            return value == term
        case .fuzzy(let term, let allowed):
            // A value with more bytes than 4 × (term + edits) characters cannot be within reach: skip it without
            // decoding its characters.
            guard value.utf8.count <= 4 * (term.count + allowed) else { return false }
            return Self.distance(term, Array(value), limit: allowed) <= allowed
        case .pattern(let regex):
            return regex.matches(value)
        }
    }

    /// Optimal-string-alignment (restricted Damerau–Levenshtein) distance, or `limit + 1` when it exceeds `limit`.
    ///
    /// Only the diagonal band `|i - j| <= limit` is computed (cells outside it always exceed the limit), so the
    /// cost is O(length × (2 × limit + 1)), not quadratic.
    static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        let beyond = limit + 1
        var previous2 = [Int](repeating: beyond, count: b.count + 1)
        var previous = [Int](repeating: beyond, count: b.count + 1)
        var current = [Int](repeating: beyond, count: b.count + 1)
        for j in 0...min(b.count, limit) { previous[j] = j }
        for i in 1...a.count {
            let low = max(1, i - limit)
            let high = min(b.count, i + limit)
            // Reset the cells this row may read outside its band.
            current[low - 1] = low - 1 == 0 ? i : beyond
            if high < b.count { current[high + 1] = beyond }
            var rowMinimum = current[low - 1]
            if low <= high {
                for j in low...high {
                    let cost = a[i - 1] == b[j - 1] ? 0 : 1
                    var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                    if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                        value = min(value, previous2[j - 2] + 1)
                    }
                    current[j] = min(value, beyond)
                    rowMinimum = min(rowMinimum, current[j])
                }
            }
            if rowMinimum > limit { return beyond }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return min(previous[b.count], beyond)
    }
}
