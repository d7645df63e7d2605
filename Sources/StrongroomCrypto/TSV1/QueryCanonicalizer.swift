// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// The path and query forms the E3DB SDKs sign in TSV1 headers (they disagree; see the protocol spec §2.2).
enum QueryCanonicalizer {
    /// Python 2.3.0 (and Go): `urlencode(sorted(parse_qsl(query, keep_blank_values=True)))`.
    static func python(_ rawQuery: String) -> String {
        let pairs = parsePairs(rawQuery)
            .sorted { lhs, rhs in
                if lhs.0 != rhs.0 { return lhs.0.utf8.lexicographicallyPrecedes(rhs.0.utf8) }
                return lhs.1.utf8.lexicographicallyPrecedes(rhs.1.utf8)
            }
        return pairs.map { quotePlus($0.0) + "=" + quotePlus($0.1) }.joined(separator: "&")
    }

    /// JS and e3db-swift: the raw `k=v` segments, sorted by their raw key (stable), not re-encoded.
    static func rawSortedByKey(_ rawQuery: String) -> String {
        let segments = rawQuery.split(separator: "&", omittingEmptySubsequences: true).map(String.init)
        let keyed = segments.enumerated().map { index, segment in
            (
                segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
                    ?? "",
                index, segment
            )
        }
        return keyed.sorted { lhs, rhs in
            if lhs.0 != rhs.0 { return lhs.0.utf8.lexicographicallyPrecedes(rhs.0.utf8) }
            return lhs.1 < rhs.1
        }.map { $0.2 }.joined(separator: "&")
    }

    /// Java: decoded `name=value` strings sorted as whole strings.
    static func decodedSortedWhole(_ rawQuery: String) -> String {
        parsePairs(rawQuery).map { $0.0 + "=" + $0.1 }
            .sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            .joined(separator: "&")
    }

    /// Python's `parse_qsl(keep_blank_values=True)`: split on `&`, skip empty segments, `+` is a space,
    /// percent-decode as UTF-8 with replacement characters.
    static func parsePairs(_ rawQuery: String) -> [(String, String)] {
        rawQuery.split(separator: "&", omittingEmptySubsequences: true).map { segment in
            let parts = segment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unquotePlus(parts[0])
            let value = parts.count > 1 ? unquotePlus(parts[1]) : ""
            return (name, value)
        }
    }

    /// Decodes `+` to space and `%XX` escapes; malformed escapes stay literal.
    static func unquotePlus(_ text: Substring) -> String {
        percentDecode(text.utf8.map { $0 == UInt8(ascii: "+") ? UInt8(ascii: " ") : $0 })
    }

    /// Percent-decodes a path or query component; malformed escapes stay literal.
    static func percentDecode(_ bytes: some Collection<UInt8>) -> String {
        let input = Array(bytes)
        var output: [UInt8] = []
        output.reserveCapacity(input.count)
        var index = 0
        while index < input.count {
            if input[index] == UInt8(ascii: "%"), index + 2 < input.count,
                let high = hexDigitValue(input[index + 1]), let low = hexDigitValue(input[index + 2])
            {
                output.append(high << 4 | low)
                index += 3
            } else {
                output.append(input[index])
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Python's `quote_plus`: unreserved `A-Z a-z 0-9 _ . - ~` stay, space becomes `+`, the rest `%XX` (upper).
    static func quotePlus(_ text: String) -> String { PercentEncoding.encode(text, spaceAsPlus: true) }
}
