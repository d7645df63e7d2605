// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomTesting
import Testing

@testable import StrongroomDatastore

/// The canonical JSON writer must produce exactly `JSONEncoder`'s bytes (`.sortedKeys`, `.withoutEscapingSlashes`):
/// revision IDs hash them, and replicas — and datastores written before the writer existed — must agree.
@Suite struct CanonicalJSONTests {
    private static let reference: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()

    @Test("the edge cases: escapes, key order by UTF-8 bytes, number forms")
    func edges() throws {
        let body: [String: JSONValue] = [
            "a\"b\\c/d\u{0}\u{1}\u{8}\u{9}\u{a}\u{c}\u{d}\u{1f}\u{7f}\u{2028}é😀": .string("x\u{1b}y"),
            "e\u{301}": .number(1), "ez": .number(-0.0), "f": .number(1e15), "Ａ": .number(1e16), "😀": .number(1.5e-7),
            "B": .number(123456789012345.6), "_": .number(9007199254740992), "a10": .number(-1e-5),
            "a2": .number(Double.greatestFiniteMagnitude), "n": .null, "t": .bool(true), "u": .bool(false),
            "arr": .array([.number(0.1), .array([]), .object([:]), .string("")]),
            "obj": .object(["z": .null, "y": .number(2.5)]),
        ]
        #expect(CanonicalJSON.encode(body) == Array(try Self.reference.encode(body)))
    }

    @Test("2,000 random bodies: the same bytes as JSONEncoder")
    func random() throws {
        var generator = SeededGenerator(seed: 0x5352_4A53_4F4E_0001)
        for _ in 0..<2_000 {
            let body = Self.object(depth: 0, using: &generator)
            let ours = CanonicalJSON.encode(body)
            let theirs = Array(try Self.reference.encode(body))
            #expect(ours == theirs, "\(String(decoding: theirs, as: UTF8.self))")
            if ours != theirs { return }
        }
    }

    @Test("long strings, an escape or control character at every offset: the same bytes as JSONEncoder, read back")
    func longStrings() throws {
        // The plain runs between escapes are found eight bytes at a time (JSONPlainRun): put each kind of byte
        // that ends a run, and a non-ASCII one, at every offset of a word and across word boundaries.
        for special in ["\"", "\\", "\u{0}", "\u{1f}", "\n", "é", "\u{7f}", " "] {
            for offset in 0..<40 {
                let text = String(repeating: "a", count: offset) + special + String(repeating: "b", count: 40 - offset)
                let body: [String: JSONValue] = [text: .string(text + special + text)]
                let ours = CanonicalJSON.encode(body)
                #expect(ours == Array(try Self.reference.encode(body)), "\(offset) \(special.debugDescription)")
                #expect(try ours.withUnsafeBytes { try JSONReader.object(from: $0) } == body)
            }
        }
    }

    @Test("the plain-run scan agrees with a byte-by-byte scan on random bytes from every start")
    func plainRun() {
        var generator = SeededGenerator(seed: 0x5352_4A53_4F4E_0004)
        let bytes: [UInt8] = [0x00, 0x1F, 0x20, 0x21, 0x22, 0x5B, 0x5C, 0x5D, 0x7F, 0x80, 0xA2, 0xDC, 0xFF, 0x61]
        for _ in 0..<2_000 {
            let length = Int(generator.next() % 48)
            let text: [UInt8] = (0..<length).map { _ in
                // Mostly plain, so that whole words pass and the special byte falls anywhere.
                generator.next() % 6 == 0
                    ? bytes[Int(generator.next() % UInt64(bytes.count))] : UInt8(0x23 + generator.next() % 0x39)
            }
            text.withUnsafeBytes { raw in
                for start in 0...length {
                    let expected =
                        text[start...].firstIndex { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C } ?? length
                    #expect(JSONPlainRun.end(in: raw, from: start) == expected, "\(text) from \(start)")
                }
            }
        }
    }

    private static let alphabet: [String] = [
        "a", "b", "Z", "_", "0", "9", " ", "\"", "\\", "/", "\u{0}", "\u{8}", "\u{9}", "\u{a}", "\u{c}", "\u{d}",
        "\u{1f}", "\u{7f}", "é", "e\u{301}", "ä", "ß", "\u{2028}", "Ａ", "😀", "👩‍👩‍👧", "中", "\u{FEFF}",
    ]

    private static func string(using generator: inout SeededGenerator) -> String {
        let length = Int(generator.next() % 8)
        return (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
    }

    private static func number(using generator: inout SeededGenerator) -> Double {
        switch generator.next() % 8 {
        case 0: return Double(Int64(bitPattern: generator.next()) % 1_000_000)
        case 1: return Double(Int64(bitPattern: generator.next()) >> Int(generator.next() % 64))
        case 2: return Double(generator.next() % 1000) / 1000
        case 3:
            return [
                0.0, -0.0, 1e15, -1e15, 1e16, 9007199254740992, 999999999999999, 1e-7, Double.leastNonzeroMagnitude,
            ][
                Int(generator.next() % 9)
            ]
        default:
            let bits = generator.next()
            let value = Double(bitPattern: bits)
            return value.isFinite ? value : Double(bits % 1_000_000) * 1e-3
        }
    }

    private static func value(depth: Int, using generator: inout SeededGenerator) -> JSONValue {
        switch generator.next() % (depth < 4 ? 7 : 5) {
        case 0: return .null
        case 1: return .bool(generator.next() % 2 == 0)
        case 2: return .number(number(using: &generator))
        case 3, 4: return .string(string(using: &generator))
        case 5: return .array((0..<Int(generator.next() % 5)).map { _ in value(depth: depth + 1, using: &generator) })
        default: return .object(object(depth: depth + 1, using: &generator))
        }
    }

    static func object(depth: Int, using generator: inout SeededGenerator) -> [String: JSONValue] {
        var members: [String: JSONValue] = [:]
        for _ in 0..<Int(generator.next() % 8) {
            members[string(using: &generator)] = value(depth: depth, using: &generator)
        }
        return members
    }
}

/// The stored-body reader: what the canonical writer writes reads back as the same body, JSONSerialization's reading
/// of any JSON object agrees with it, and damaged text is a typed error, never a trap.
@Suite struct JSONReaderTests {
    private func read(_ text: some Collection<UInt8>) -> [String: JSONValue]? {
        try? Array(text).withUnsafeBytes { try JSONReader.object(from: $0) }
    }

    @Test("2,000 random bodies written canonically read back equal")
    func roundTrip() {
        var generator = SeededGenerator(seed: 0x5352_4A53_4F4E_0002)
        for _ in 0..<2_000 {
            let body = CanonicalJSONTests.object(depth: 0, using: &generator)
            let bytes = CanonicalJSON.encode(body)
            #expect(read(bytes) == body, "\(String(decoding: bytes, as: UTF8.self))")
        }
    }

    @Test("JSON another writer made: whitespace, escapes, surrogate pairs, exponents")
    func foreign() throws {
        let text =
            #" { "a" : [ 1 , -0.5e2 , 2E+3 , true , false , null ] , "s" : "\u00e9\ud83d\ude00\/\"\\\b\f\n\r\t" , "o" : { } } "#
        let body = try #require(read(Array(text.utf8)))
        #expect(body["a"] == .array([.number(1), .number(-50), .number(2000), .bool(true), .bool(false), .null]))
        #expect(body["s"] == .string("é😀/\"\\\u{8}\u{c}\n\r\t"))
        #expect(body["o"] == .object([:]))
        // Integers of up to 15 digits are read without making text; the sign of -0 is kept.
        let numbers = try #require(read(Array(#"{"a":[-0,0,999999999999999,-123456789012345,1234567890123456]}"#.utf8)))
        let expected: [Double] = [-0.0, 0, 999_999_999_999_999, -123_456_789_012_345, 1_234_567_890_123_456]
        guard case .array(let items) = numbers["a"] else { Issue.record("not an array"); return }
        #expect(items == expected.map { .number($0) })
        if case .number(let zero) = items[0] { #expect(zero.sign == .minus) }
    }

    @Test("malformed text is refused: truncations, bad escapes, lone surrogates, leading zeros, trailing bytes, depth")
    func malformed() {
        let cases = [
            "", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":1e}",
            "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\udc00\"}", "{\"a\":\"\\ud800\\u0041\"}",
            "{\"a\":\"\u{1}\"}",
            "{\"a\":tru}", "{\"a\":1} x", "{\"a\":1e999}", "{\"a\":NaN}", "{\"a\":\"unterminated}",
            "{\"a\":" + String(repeating: "[", count: 600) + String(repeating: "]", count: 600) + "}",
        ]
        for text in cases { #expect(read(Array(text.utf8)) == nil, "\(text.prefix(40))") }
    }

    @Test("random damage to valid bodies never traps (each reads or is refused)")
    func damage() {
        var generator = SeededGenerator(seed: 0x5352_4A53_4F4E_0003)
        for _ in 0..<3_000 {
            var bytes = CanonicalJSON.encode(CanonicalJSONTests.object(depth: 0, using: &generator))
            for _ in 0..<(1 + Int(generator.next() % 3)) where !bytes.isEmpty {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 3 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                }
            }
            _ = read(bytes)
        }
    }
}
