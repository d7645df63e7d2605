// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomWire
import Testing

/// `Identifier` parses and prints UUIDs itself (Foundation's parser goes through `sscanf`): it reads every canonical
/// UUID as `UUID(uuidString:)` does and prints what `uuidString.lowercased()` prints, and it is stricter where
/// Foundation on Linux is lax (`sscanf` takes a sign, a space or `0x` inside a group: "-FB30C6B-…" is a UUID to it).
@Suite struct IdentifierTests {
    @Test(
        "known answers",
        arguments: [
            ("8D4ACDFF-3C54-451B-9CDC-6873117A6F9A", "8d4acdff-3c54-451b-9cdc-6873117a6f9a"),
            ("8d4acdff-3c54-451b-9cdc-6873117a6f9a", "8d4acdff-3c54-451b-9cdc-6873117a6f9a"),
            ("00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"),
            ("ffffffff-FFFF-ffff-FFFF-ffffffffffff", "ffffffff-ffff-ffff-ffff-ffffffffffff"),
        ]
    )
    func knownAnswers(text: String, wire: String) throws {
        let id = try #require(ClientID(text))
        #expect(id.description == wire)
        #expect(id.uuid == UUID(uuidString: text))
    }

    @Test(
        "refuses anything but 36 characters of hex groups 8-4-4-4-12",
        arguments: [
            "", "8d4acdff3c54451b9cdc6873117a6f9a", "8d4acdff-3c54-451b-9cdc-6873117a6f9",
            " 8d4acdff-3c54-451b-9cdc-6873117a6f9",
            "8d4acdff-3c54-451b-9cdc-6873117a6f9a ", "8d4acdff_3c54-451b-9cdc-6873117a6f9a",
            "8d4acdfg-3c54-451b-9cdc-6873117a6f9a",
            "+d4acdff-3c54-451b-9cdc-6873117a6f9a", "8d4acdff-+c54-451b-9cdc-6873117a6f9a",
            "8d4acdff-3c54-451b-9cdc-6873117a6f9é",
            "8d4acdff-3c54-451b-9cdc-6873117a6f\u{0}a", "0x4acdff-3c54-451b-9cdc-6873117a6f9a",
            "8d4acdff-3c54-451b-9cdc-6873117a6f9a-", "8d4acdff-3c54-451b-9cdc-68-3117a6f9a",
        ]
    )
    func refusals(text: String) {
        #expect(ClientID(text) == nil)
    }

    @Test("agrees with Foundation on random UUIDs and on the canonical one-character changes of one")
    func agreesWithFoundation() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let uuid = UUID()
            #expect(RecordID(uuid.uuidString)?.uuid == uuid)
            #expect(RecordID(uuid).description == uuid.uuidString.lowercased())
        }
        let base = Array(UUID().uuidString.utf8)
        let replacements = Array("-0aFgG+ x\u{0}".utf8) + [0xFF, 0x80]
        for index in base.indices {
            for replacement in replacements {
                var changed = base
                changed[index] = replacement
                let text = String(decoding: changed, as: UTF8.self)
                let expected = Self.isCanonical(text) ? UUID(uuidString: text) : nil
                #expect(ClientID(text)?.uuid == expected, "\(text)")
            }
        }
        for _ in 0..<1000 {
            let alphabet = Array("0123456789abcdefABCDEF-".utf8)
            let text = String(decoding: (0..<36).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            #expect(ClientID(text)?.uuid == (Self.isCanonical(text) ? UUID(uuidString: text) : nil), "\(text)")
        }
    }

    /// Hex digits in groups of 8-4-4-4-12, joined by hyphens.
    private static func isCanonical(_ text: String) -> Bool {
        text.wholeMatch(of: /[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}/) != nil
    }

    @Test("substrings parse like strings")
    func substrings() {
        let text = "id=8d4acdff-3c54-451b-9cdc-6873117a6f9a"
        #expect(ClientID(text.dropFirst(3))?.description == "8d4acdff-3c54-451b-9cdc-6873117a6f9a")
    }
}
