// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A cursor over JSON text in its everyday shape — objects of strings (or `null`), whitespace where JSON allows
/// it, strings free of escapes and control characters — for the server's request bodies and stored `plain`/`data`
/// maps and the SDK's record answers (``PlainJSONReadable``). Every method answers nil or false, never traps, on
/// text outside that shape (the caller then hands the text to Foundation's parser); nesting is whatever the caller
/// spells out, so there is no recursion.
package struct PlainJSONScanner {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var index = 0

    package init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Whether only whitespace is left.
    package var isAtEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    /// A string with no escapes or control characters, in valid UTF-8.
    package mutating func string() -> String? {
        guard consume(UInt8(ascii: "\"")), let base = bytes.baseAddress,
            let found = memchr(base + index, Int32(UInt8(ascii: "\"")), bytes.count - index)
        else { return nil }
        let start = index
        let end = start + (UnsafeRawPointer(found) - UnsafeRawPointer(base + start))
        guard JSONText.isPlain(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<end])) else {
            return nil
        }
        index = end + 1
        return String(validating: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A string holding an E3DB timestamp (``Timestamp/init(iso8601:)``).
    package mutating func timestamp() -> Timestamp? {
        string().flatMap(Timestamp.init(iso8601:))
    }

    /// Consumes `null` if it comes next.
    package mutating func null() -> Bool {
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
    package mutating func object(_ member: (inout PlainJSONScanner, String) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        while true {
            guard let key = string(), consume(UInt8(ascii: ":")), member(&self, key) else { return false }
            if consume(UInt8(ascii: "}")) { return true }
            guard consume(UInt8(ascii: ",")) else { return false }
        }
    }

    /// An object of strings.
    package mutating func stringMap() -> [String: String]? {
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
