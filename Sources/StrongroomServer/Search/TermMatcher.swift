// Strongroom — SPDX-License-Identifier: Apache-2.0

/// How a v2 search term is compared with a value.
/// Not Sendable: it holds a compiled `Regex`, and lives within one request.
enum TermMatcher {
    case exact(String)
    /// Elasticsearch "AUTO" fuzziness: terms of 0–2 characters exact, 3–5 within 1 edit, longer within 2
    /// (Damerau–Levenshtein: insertions, deletions, substitutions and adjacent transpositions).
    case fuzzy(String)
    /// `*` matches any run, `?` one character; the whole value must match.
    case wildcard(String)
    /// A regular expression that must match the whole value.
    case regexp(Regex<AnyRegexOutput>)

    /// - Throws: ``ServerError`` (400) for an unknown strategy or an invalid regular expression.
    init(strategy: String?, term: String) throws {
        switch (strategy ?? "EXACT").uppercased() {
        case "EXACT": self = .exact(term)
        case "FUZZY": self = .fuzzy(term)
        case "WILDCARD": self = .wildcard(term)
        case "REGEXP":
            do {
                self = .regexp(try Regex(term))
            } catch {
                throw ServerError.badRequest("the REGEXP term is not a valid regular expression")
            }
        default: throw ServerError.badRequest("strategy must be EXACT, FUZZY, WILDCARD or REGEXP")
        }
    }

    func matches(_ value: String) -> Bool {
        switch self {
        case .exact(let term):
            return value == term
        case .fuzzy(let term):
            let length = term.count
            let allowed = length <= 2 ? 0 : (length <= 5 ? 1 : 2)
            return Self.distance(Array(term), Array(value), limit: allowed) <= allowed
        case .wildcard(let pattern):
            return Self.wildcard(Array(pattern)[...], Array(value)[...])
        case .regexp(let regex):
            return (try? regex.wholeMatch(in: value)) != nil  // a matching failure means no match
        }
    }

    /// Optimal-string-alignment (restricted Damerau–Levenshtein) distance, stopping early past `limit`.
    static func distance(_ a: [Character], _ b: [Character], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, previous2[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// Glob matching with `*` and `?`, iteratively with backtracking to the last star.
    static func wildcard(_ pattern: ArraySlice<Character>, _ value: ArraySlice<Character>) -> Bool {
        var p = pattern.startIndex
        var v = value.startIndex
        var star: Int?
        var mark = value.startIndex
        while v < value.endIndex {
            if p < pattern.endIndex, pattern[p] == "?" || pattern[p] == value[v] {
                p += 1
                v += 1
            } else if p < pattern.endIndex, pattern[p] == "*" {
                star = p
                mark = v
                p += 1
            } else if let starIndex = star {
                p = starIndex + 1
                mark += 1
                v = mark
            } else {
                return false
            }
        }
        while p < pattern.endIndex, pattern[p] == "*" { p += 1 }
        return p == pattern.endIndex
    }
}
