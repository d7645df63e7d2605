// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation

/// A cursor over JSON text in its everyday shape — objects of strings (or `null`), whitespace where JSON allows
/// it, strings free of escapes and control characters — for request bodies (``PlainJSONReadable``) and the stored
/// `plain`/`data` maps. Every method answers nil or false, never traps, on text outside that shape (the caller
/// then hands the text to Foundation's parser); nesting is whatever the caller spells out, so there is no recursion.
struct PlainJSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    var isAtEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    /// A string with no escapes or control characters, in valid UTF-8.
    mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")), let base = bytes.baseAddress,
            let found = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index)
        else { return nil }
        let start = index
        let end = start + (UnsafeRawPointer(found) - UnsafeRawPointer(base + start))
        guard Self.isPlain(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<end])) else {
            return nil
        }
        index = end + 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// Whether `text` has no control character (below 0x20) and no backslash, eight bytes at a time: in a word,
    /// `(x - 0x20…20) & ~x` has a byte's high bit set for some byte below 0x20 exactly when there is one, and the
    /// same over `x ^ 0x5C…5C` with `0x01…01` for a byte equal to 0x5C.
    static func isPlain(_ text: UnsafeRawBufferPointer) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        var offset = 0
        var found: UInt64 = 0
        while text.count - offset >= 8 {
            let word = UInt64(littleEndian: text.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            let backslashes = word ^ (ones &* 0x5C)
            found |= ((word &- ones &* 0x20) & ~word) | ((backslashes &- ones) & ~backslashes)
            offset += 8
        }
        var refused = found & highBits != 0
        for byte in text[offset...] { refused = refused || byte < 0x20 || byte == 0x5C }
        return !refused
    }

    /// Consumes `null` if it comes next.
    mutating func null() -> Bool {
        skipSpace()
        guard bytes.count - index >= 4, bytes[index] == UInt8(ascii: "n"), bytes[index + 1] == UInt8(ascii: "u"),
            bytes[index + 2] == UInt8(ascii: "l"), bytes[index + 3] == UInt8(ascii: "l")
        else { return false }
        index += 4
        return true
    }

    /// An object: `member` reads the value of each key (the scanner placed before it) and answers whether it
    /// could; it also refuses a key it has seen (JSON leaves repeated keys to each reader, so they go to
    /// `JSONDecoder`). False for anything that is not such an object.
    mutating func object(_ member: (inout PlainJSONScanner, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
            if consume(UInt8(ascii: "}")) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    /// An object of strings.
    mutating func stringMap() -> [String: String]? {
        var map: [String: String] = [:]
        let read = object { scanner, key in
            guard let value = scanner.string() else { return false }
            return map.updateValue(value, forKey: key) == nil
        }
        return read ? map : nil
    }

    /// Consumes `byte`, after any whitespace, if it comes next.
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func skipSpace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }
}
