// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import StrongroomWire
import Testing

@testable import StrongroomServer

/// The record-write body's fast reader: whatever it reads, it reads as `JSONDecoder` does, in the shapes the SDKs
/// send (compact, Python's `", "`/`": "` separators, pretty-printed); whatever it does not take is left to
/// `JSONDecoder`.
@Suite struct PlainJSONTests {
    static func reference(_ text: String) -> RecordWriteRequest? {
        try? JSONDecoder().decode(RecordWriteRequest.self, from: Data(text.utf8))
    }

    static func fast(_ text: String) -> RecordWriteRequest? {
        var text = text
        return text.withUTF8(RecordWriteRequest.plainJSON)
    }

    static func randomRequest(using generator: inout some RandomNumberGenerator) -> RecordWriteRequest {
        func word(_ length: ClosedRange<Int>) -> String { RandomJSONText.word(length, using: &generator) }
        func map() -> [String: String] { RandomJSONText.map(using: &generator) }
        func maybe<T>(_ value: @autoclosure () -> T) -> T? { Bool.random(using: &generator) ? value() : nil }
        return RecordWriteRequest(
            meta: .init(
                writerID: maybe(word(0...36)),
                userID: maybe(word(0...36)),
                type: maybe(word(0...12)),
                plain: maybe(map())
            ),
            data: maybe(map()),
            recordSignature: maybe(word(0...80))
        )
    }

    /// The request as JSON with every optional written out (as `null` when absent), in Python's default style.
    static func pythonStyle(_ request: RecordWriteRequest) throws -> String {
        func value(_ any: Any?) -> Any { any ?? NSNull() }
        let object: [String: Any] = [
            "meta": [
                "writer_id": value(request.meta.writerID), "user_id": value(request.meta.userID),
                "type": value(request.meta.type), "plain": value(request.meta.plain),
            ],
            "data": value(request.data), "rec_sig": value(request.recordSignature),
        ]
        let compact = String(
            decoding: try JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes]),
            as: UTF8.self
        )
        // JSONSerialization writes no spaces; Python's json.dumps puts one after each ',' and ':' outside strings.
        var spaced = ""
        var inString = false
        for character in compact {
            spaced.append(character)
            if character == "\"" { inString.toggle() }
            if !inString && (character == "," || character == ":") { spaced.append(" ") }
        }
        return spaced
    }

    @Test("requests the SDKs write are read as JSONDecoder reads them, in every whitespace style")
    func sdkShapes() throws {
        var generator = SystemRandomNumberGenerator()
        let compact = JSONEncoder()
        let pretty = JSONEncoder()
        pretty.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        compact.outputFormatting = [.withoutEscapingSlashes]
        for _ in 0..<500 {
            let request = Self.randomRequest(using: &generator)
            for text in [
                String(decoding: try compact.encode(request), as: UTF8.self),
                String(decoding: try pretty.encode(request), as: UTF8.self),
                try Self.pythonStyle(request),
            ] {
                #expect(Self.fast(text) == request, "\(text)")
                #expect(Self.reference(text) == request, "\(text)")
            }
        }
    }

    @Test("anything outside the everyday shape is left to JSONDecoder, never read differently")
    func otherShapesAreLeftAlone() throws {
        let left = [
            #"{"meta":{"type":"a\"b"},"data":{"f":"v"}}"#,  // an escape
            #"{"meta":{"type":"t"},"data":{"f":"\u0041"}}"#,
            #"{"meta":{"type":"t"},"data":{"f":"v","f":"w"}}"#,  // a repeated key
            #"{"meta":{"type":"t"},"meta":{"type":"u"}}"#,
            #"{"meta":{"type":"t"},"data":{"f":"v"},"extra":"x"}"#,  // a key JSONDecoder would ignore
            #"{"meta":{"type":"t","other":1}}"#,
            #"{"meta":{"type":1}}"#,  // other value types
            #"{"meta":{"type":"t"},"data":{"f":1}}"#,
            #"{"meta":{"type":"t"},"data":["f"]}"#,
            #"{"meta":{"type":"t"},"rec_sig":true}"#,
            #"{"meta":null}"#, #"{"data":{}}"#, "{}", "[]", "null", "\"x\"", "",
            #"{"meta":{"type":"t"}} x"#, #"{"meta":{"type":"t"}"#, #"{"meta":{"type":"t"},}"#, #"{"meta":{"type":"t"}"#,
            #"{"meta":{"type":"t\#u{1}"}}"#,  // a control character
            #"{"meta":{"type":"t"},"data":{"f":"v"}}}"#, #"{"meta":{"type":"t"},"data":{"f":"v",}}"#,
            #"{"meta":{"type":"t"},"data":nul}"#, #"{"meta":{"type":"t"},"data":nullx}"#,
        ]
        for text in left {
            #expect(Self.fast(text) == nil, "\(text)")
        }
        // Bytes that are not UTF-8 inside a string.
        var invalid = Array(#"{"meta":{"type":"t"},"data":{"f":"x"}}"#.utf8)
        invalid[invalid.count - 4] = 0xFF
        #expect(invalid.withUnsafeBufferPointer(RecordWriteRequest.plainJSON) == nil)
        #expect((try? JSONDecoder().decode(RecordWriteRequest.self, from: Data(invalid))) == nil)
    }

    @Test("nulls, empty objects and surrounding whitespace read as JSONDecoder reads them")
    func edges() throws {
        for text in [
            #"{"meta":{}}"#, #"{"meta":{},"data":null,"rec_sig":null}"#, " \n{ \"meta\" : { \"plain\" : { } } }\r\n\t",
            #"{"rec_sig":"s","data":{},"meta":{"plain":null,"type":null,"user_id":null,"writer_id":null}}"#,
            #"{"meta":{"type":""},"data":{"":""}}"#,
        ] {
            let fast = try #require(Self.fast(text), "\(text)")
            #expect(fast == Self.reference(text), "\(text)")
        }
    }
}

extension PlainJSONTests {
    @Test("the word-at-a-time scan finds a control character, quote or backslash at every position and length")
    func plainScan() {
        for length in 0..<70 {
            let clean = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(clean.withUnsafeBytes(JSONText.isPlain))
            for position in 0..<length {
                for refused: UInt8 in [0x00, 0x1F, 0x22, 0x5C, 0x0A] {
                    var text = clean
                    text[position] = refused
                    #expect(!text.withUnsafeBytes(JSONText.isPlain), "\(length) \(position) \(refused)")
                }
                var text = clean
                text[position] = 0x20
                text[length - 1 - position] = 0xFF
                #expect(text.withUnsafeBytes(JSONText.isPlain))
            }
        }
        // Random text, mostly bytes next to the refused ones (0x20, 0x21, 0x23, 0x5D, 0x5B, 0xDC, 0xA0, 0x9F…), against a plain
        // byte loop.
        var generator = SystemRandomNumberGenerator()
        let near: [UInt8] = [
            0x1F, 0x20, 0x21, 0x22, 0x23, 0x5B, 0x5C, 0x5D, 0x9F, 0xA0, 0xDC, 0xFF, 0x7F, 0x80, 0x00, 0x01,
        ]
        for _ in 0..<5000 {
            let text = (0..<Int.random(in: 0...40, using: &generator)).map { _ in
                Int.random(in: 0..<8, using: &generator) == 0
                    ? near.randomElement(using: &generator)! : UInt8.random(in: 0x20...0xFF, using: &generator)
            }
            let expected = !text.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
            #expect(text.withUnsafeBytes(JSONText.isPlain) == expected, "\(text)")
        }
    }
}
