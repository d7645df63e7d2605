// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import PropertyBased
import StrongroomRegex
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The v2 search decoder, filter and matchers take whatever a caller sends: they answer or throw, never trap, and
/// the banded edit distance agrees with the textbook one.
@Suite struct SearchFuzzTests {
    static let sample = """
        {"limit": 50, "next_token": 0, "include_all_writers": true, "include_data": false,
        "match": [{"condition": "AND", "strategy": "FUZZY", "terms": {"values": ["abc"], "keys": ["k"],
        "tags": {"k": "v"}, "content_types": ["t"], "writer_ids": ["w"]}}],
        "exclude": [{"strategy": "REGEXP", "terms": {"values": ["a.*"]}}],
        "range": {"range_key": "CREATED", "after": "2020-01-01T00:00:00Z"}}
        """
    static let splices = [
        "9223372036854775807", "-9223372036854775808", "1e300", "-1", "null", "\"", "{", "}", "[", "]", ",", ":",
        "(a+)+", "*", "?", "\\", "\"WILDCARD\"", "\"REGEXP\"", "[[[[", "0.5", "",
    ]

    /// The sample with a few random splices: mostly invalid JSON, sometimes a valid request with hostile values.
    static let mutated = Gen.int(in: 0...(sample.utf8.count - 1)).array(of: 1...4).map { positions in
        var bytes = Array(sample.utf8)
        for (index, position) in positions.enumerated() {
            let splice = Array(splices[(position + index) % splices.count].utf8)
            let at = min(position, bytes.count)
            bytes.replaceSubrange(at..<min(bytes.count, at + index % 3), with: splice)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static let record = StoredRecord(
        index: 1,
        recordID: "r",
        writerID: "w",
        userID: "w",
        type: "t",
        plain: ["k": "v", "abd": String(repeating: "a", count: 64)],
        data: [:],
        recordSignature: nil,
        created: Timestamp(microseconds: 1_700_000_000_000_000),
        lastModified: Timestamp(microseconds: 1_700_000_000_000_000),
        version: "v",
        fileMeta: nil,
        isPending: false
    )

    @Test("mutated search bodies decode, build a filter and run, or fail with an error")
    func decoderAndFilter() async {
        await propertyCheck(count: 3000, input: Self.mutated) { text in
            guard let request = try? JSONDecoder().decode(SearchV2Request.self, from: Data(text.utf8)) else { return }
            guard let filter = try? SearchV2Filter(request) else { return }
            var budget = SearchBudget(units: 1 << 20)
            _ = try? filter.accepts(Self.record, budget: &budget)
        }
    }

    @Test("random regular expressions and globs compile or are refused; matching always returns")
    func patterns() async {
        let pieces = Gen.element(of: [
            "a", "b", "(", ")", "*", "+", "?", "|", "[", "]", "{2}", "{1000}", ".", "\\", "^", "$", "é",
        ])
        .map { $0 ?? "" }.array(of: 0...24).map { $0.joined() }
        let values = Gen.element(of: ["a", "b", "é", "\n"]).map { $0 ?? "" }.array(of: 0...64).map { $0.joined() }
        await propertyCheck(count: 2000, input: pieces, values) { pattern, value in
            if let regex = LinearRegex(pattern: pattern) { _ = regex.matches(value) }
            if let glob = LinearRegex(glob: pattern) { _ = glob.matches(value) }
        }
    }

    @Test("the banded distance equals the full optimal-string-alignment distance up to the limit")
    func bandedDistance() async {
        let words = Gen.element(of: ["a", "b", "c"]).map { $0 ?? "a" }.array(of: 0...10).map { $0.joined() }
        await propertyCheck(count: 3000, input: words, words, Gen.int(in: 0...2)) { a, b, limit in
            let banded = TermMatcher.distance(Array(a), Array(b), limit: limit)
            let full = Self.fullDistance(Array(a), Array(b))
            #expect(min(banded, limit + 1) == min(full, limit + 1), "\(a) \(b) \(limit)")
        }
    }

    /// The textbook O(n·m) optimal-string-alignment distance.
    static func fullDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { table[i][0] = i }
        for j in 0...b.count { table[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
                }
            }
        }
        return table[a.count][b.count]
    }
}
