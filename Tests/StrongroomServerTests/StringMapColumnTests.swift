// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import StrongroomServer

/// The stored `plain`/`data` columns: what the fast reader takes, it reads as `JSONSerialization` does; what it does
/// not take still goes to `JSONSerialization`.
@Suite struct StringMapColumnTests {
    static func reference(_ text: String) -> [String: String]? {
        (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: String]
    }

    @Test("maps written by the store read back equal, with and without characters that need escapes")
    func roundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abc XYZ019.-_/é€😀\"\\\n\t\u{1}\u{7F}\u{2028}")
        for round in 0..<500 {
            var map: [String: String] = [:]
            for _ in 0..<Int.random(in: 0...6, using: &generator) {
                let key = String((0..<Int.random(in: 0...8, using: &generator)).map { _ in alphabet.randomElement()! })
                let value = String(
                    (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                        round.isMultiple(of: 2) ? alphabet.prefix(16).randomElement()! : alphabet.randomElement()!
                    }
                )
                map[key] = value
            }
            let text = encodeStringMap(map)
            #expect(try decodeStringMap(text) == map, "\(text)")
            #expect(Self.reference(text) == map)
        }
    }

    @Test("odd but valid JSON is read as JSONSerialization reads it; invalid text is an error")
    func oddText() throws {
        let valid = [
            "{}", "{ }", #"{"a":"b"}"#, #"{ "a" : "b" }"#, #"{"a":"b","c":"d"}"#, #"{"a":"\u0041"}"#, #"{"a":"\/"}"#,
            #"{"":""}"#, #"{"é":"😀"}"#, "{\"a\":\"b\"}\n", #"{"a":"b","a":"c"}"#,
        ]
        for text in valid {
            let expected = try #require(Self.reference(text), "\(text)")
            #expect(try decodeStringMap(text) == expected, "\(text)")
        }
        let invalid = [
            "", "{", "}", "[]", #"{"a":1}"#, #"{"a":"b""#, #"{"a""b"}"#, #"{"a":"b"}x"#,
            #"{"a":"b"}}"#, #"{"a":"b" "c":"d"}"#, "{\"a\":\"\u{1}\"}", #"{"a":null}"#, #"{"a":["b"]}"#, #"{a:"b"}"#,
        ]
        for text in invalid {
            #expect(throws: (any Error).self, "\(text)") { try decodeStringMap(text) }
        }
    }
}
