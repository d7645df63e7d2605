// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Random strings and string maps for JSON round-trip tests, drawn from characters that stress a JSON reader or
/// writer: ASCII, multi-byte UTF-8 (`é`, `€`, an emoji), DEL and U+2028 (legal in JSON, not in JavaScript source).
public enum RandomJSONText {
    /// The characters the strings are made of.
    public static let alphabet = Array("abc XYZ019.-_/=+é€😀\u{7F}\u{2028}")

    /// A string of a random length within `length`.
    public static func word(_ length: ClosedRange<Int>, using generator: inout some RandomNumberGenerator) -> String {
        String(
            (0..<Int.random(in: length, using: &generator)).map { _ in
                alphabet[Int.random(in: alphabet.indices, using: &generator)]
            }
        )
    }

    /// Up to five entries, keys of up to 8 characters and values of up to 60.
    public static func map(using generator: inout some RandomNumberGenerator) -> [String: String] {
        var map: [String: String] = [:]
        for _ in 0..<Int.random(in: 0...5, using: &generator) {
            map[word(0...8, using: &generator)] = word(0...60, using: &generator)
        }
        return map
    }
}
