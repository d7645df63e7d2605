// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomWire

/// The SDK's fast reader of record answers: whatever it reads, it reads as `JSONDecoder` does; whatever it does
/// not take (file records, escapes, unknown or repeated keys, other value types) is left to `JSONDecoder`.
@Suite struct RecordResponsePlainJSONTests {
    static func reference(_ bytes: [UInt8]) -> RecordResponse? {
        try? JSONDecoder().decode(RecordResponse.self, from: Data(bytes))
    }

    static func fast(_ bytes: [UInt8]) -> RecordResponse? {
        bytes.withUnsafeBufferPointer(RecordResponse.plainJSON)
    }

    static func fast(_ text: String) -> RecordResponse? { fast(Array(text.utf8)) }

    /// The answer exactly as the server writes it: the hand-written meta, the stored fields, the signature.
    static func serverText(_ response: RecordResponse) -> String {
        var text = #"{"meta":"# + response.meta.jsonText + #","data":"#
        JSONText.appendStringMap(response.data, to: &text)
        text += #","rec_sig":"#
        JSONText.appendOptionalString(response.recordSignature, to: &text)
        return text + "}"
    }

    static func randomResponse(using generator: inout some RandomNumberGenerator) -> RecordResponse {
        func word(_ length: ClosedRange<Int>) -> String { RandomJSONText.word(length, using: &generator) }
        func map() -> [String: String] { RandomJSONText.map(using: &generator) }
        return RecordResponse(
            meta: RecordMeta(
                recordID: word(0...36),
                writerID: word(0...36),
                userID: word(0...36),
                type: word(0...12),
                plain: map(),
                created: Timestamp(microseconds: Int64.random(in: 0...4_102_444_800_000_000, using: &generator)),
                lastModified: Timestamp(microseconds: Int64.random(in: 0...4_102_444_800_000_000, using: &generator)),
                version: word(0...36)
            ),
            data: map(),
            recordSignature: Bool.random(using: &generator) ? word(0...80) : nil
        )
    }

    @Test("answers the server writes, compact or pretty-printed, read as JSONDecoder reads them")
    func serverShapes() throws {
        var generator = SystemRandomNumberGenerator()
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        for _ in 0..<500 {
            let response = Self.randomResponse(using: &generator)
            for text in [Self.serverText(response), String(decoding: try pretty.encode(response), as: UTF8.self)] {
                #expect(Self.fast(text) == response, "\(text)")
                #expect(Self.reference(Array(text.utf8)) == response, "\(text)")
            }
        }
    }

    @Test("anything outside the everyday shape is left to JSONDecoder")
    func otherShapesAreLeftAlone() throws {
        let meta =
            #"{"record_id":"r","writer_id":"w","user_id":"u","type":"t","plain":{},"#
            + #""created":"2021-07-10T19:55:52.738703Z","last_modified":"2021-07-10T19:55:52.738703Z","version":"v""#
        let left = [
            #"{"meta":"# + meta + #","file_meta":{"checksum":"c","compression":"raw","size":3,"file_url":null,"#
                + #""file_name":null}},"data":{}}"#,  // a file record
            #"{"meta":"# + meta + #"},"data":{"f":"a\"b"}}"#,  // an escape
            #"{"meta":"# + meta + #"},"data":{"f":"v","f":"w"}}"#,  // a repeated key
            #"{"meta":"# + meta + #","version":"w"},"data":{}}"#,
            #"{"meta":"# + meta + #"},"data":{},"extra":"x"}"#,  // a key JSONDecoder would ignore
            #"{"meta":"# + meta + #","extra":"x"},"data":{}}"#,
            #"{"meta":"# + meta.replacingOccurrences(of: "2021-07-10T", with: "2021-13-10T") + #"},"data":{}}"#,
            #"{"meta":"# + meta.replacingOccurrences(of: #""plain":{}"#, with: #""plain":null"#) + #"},"data":{}}"#,
            #"{"meta":"# + meta.replacingOccurrences(of: #","version":"v""#, with: "") + #"},"data":{}}"#,
            #"{"meta":"# + meta + #"},"data":null}"#, #"{"meta":"# + meta + #"}}"#,
            #"{"meta":"# + meta + #"},"data":{},"rec_sig":1}"#, #"{"meta":"# + meta + #"},"data":{}} x"#,
            #"{"meta":"# + meta + #"},"data":{}"#, "{}", "[]", "null", "",
        ]
        for text in left {
            #expect(Self.fast(text) == nil, "\(text)")
        }
        let plain = #"{"meta":"# + meta + #","file_meta":null},"data":{"f":"v"},"rec_sig":null}"#
        let read = Self.fast(plain)
        #expect(read != nil)
        #expect(read == Self.reference(Array(plain.utf8)))
    }

    @Test("a damaged answer, cut short or with a byte changed anywhere, never reads differently from JSONDecoder")
    func damagedAnswers() {
        var generator = SystemRandomNumberGenerator()
        let response = Self.randomResponse(using: &generator)
        let text = Array(Self.serverText(response).utf8)
        for length in 0..<text.count {
            let cut = Array(text[..<length])
            #expect(Self.fast(cut) == nil, "\(length)")
        }
        let replacements: [UInt8] = [0x00, 0x1F, 0x20, 0x22, 0x2C, 0x3A, 0x5C, 0x7B, 0x7D, 0x61, 0xFF]
        for position in text.indices {
            for byte in replacements where byte != text[position] {
                var changed = text
                changed[position] = byte
                if let read = Self.fast(changed) {
                    #expect(read == Self.reference(changed), "\(position) \(byte)")
                }
            }
        }
    }
}

/// `RecordWriteRequest.jsonText` is hand-written JSON: it must decode to the same request and carry the same
/// members as `JSONEncoder` writes, whatever the strings hold.
@Suite struct RecordWriteRequestJSONTextTests {
    static let requests: [RecordWriteRequest] = RecordMetaJSONTextTests.awkward.enumerated().flatMap { index, text in
        [
            RecordWriteRequest(
                meta: .init(writerID: text, userID: "u\(index)", type: text, plain: [text: text, "k": "v"]),
                data: [text: text, "f\(index)": text + text],
                recordSignature: text
            ),
            RecordWriteRequest(
                meta: .init(writerID: nil, userID: index == 0 ? nil : text, type: nil, plain: index == 1 ? [:] : nil),
                data: index == 2 ? [:] : nil,
                recordSignature: nil
            ),
        ]
    }

    @Test("decodes to the same request", arguments: requests)
    func roundTrip(request: RecordWriteRequest) throws {
        #expect(try JSONDecoder().decode(RecordWriteRequest.self, from: Data(request.jsonText.utf8)) == request)
    }

    @Test("carries exactly the members JSONEncoder writes", arguments: requests)
    func sameMembers(request: RecordWriteRequest) throws {
        try expectSameMembers(request.jsonText, as: request)
    }
}
