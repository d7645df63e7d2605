// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import Testing

@testable import StrongroomWire

/// `RecordMeta.jsonText` is hand-written JSON: it must decode to the same meta and carry the same members as
/// `JSONEncoder` writes, whatever the strings hold.
@Suite struct RecordMetaJSONTextTests {
    static let awkward = [
        "", "plain", "quote \" and \\ backslash", "controls \u{0} \u{1} \u{8} \u{c} \n \r \t \u{1f}",
        "slash / </script>",
        "non-ASCII é 日本 🔐", "\u{2028}\u{2029}", "{\"looks\":\"like JSON\"}",
    ]

    static let metas: [RecordMeta] = awkward.enumerated().map { index, text in
        RecordMeta(
            recordID: "d4acdff1-3f8c-4e7a-9b67-0123456789ab",
            writerID: text,
            userID: "user \(index)",
            type: text,
            plain: index == 0 ? [:] : [text: text, "k\(index)": "v", "zz": text + text],
            created: Timestamp(microseconds: 1_625_946_952_738_703),
            lastModified: Timestamp(microseconds: 1_700_000_000_000_001 + Int64(index)),
            version: text.isEmpty ? "v1" : text,
            fileMeta: index % 2 == 0
                ? nil
                : FileMeta(
                    checksum: "1B2M2Y8AsgTpgAmY7PhCfg==",
                    compression: "raw",
                    size: Int64(index) << 40,
                    fileURL: index == 3 ? nil : "https://example.test/\(text)",
                    fileName: index == 5 ? nil : text
                )
        )
    }

    @Test("decodes to the same meta", arguments: metas)
    func roundTrip(meta: RecordMeta) throws {
        let decoded = try JSONDecoder().decode(RecordMeta.self, from: Data(meta.jsonText.utf8))
        #expect(decoded == meta)
    }

    @Test("carries exactly the members JSONEncoder writes", arguments: metas)
    func sameMembers(meta: RecordMeta) throws {
        try expectSameMembers(meta.jsonText, as: meta)
    }
}
