// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomWire

/// A request body with a reader for its everyday shape, tried before `JSONDecoder`: objects of strings (and
/// `null` where the type allows it) with known keys, each once, whitespace anywhere JSON allows it, and strings
/// free of escapes and control characters — what the SDKs send. The reader answers nil for anything else, and
/// `JSONDecoder` then decides as before, so no body is read differently; it only skips `JSONDecoder`'s set-up and
/// its `Decoder` calls for the common case (a tenth of a record write's server time).
protocol PlainJSONReadable {
    /// The value in `bytes`, or nil when they are not in the everyday shape (they may still be valid JSON).
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> Self?
}

/// A cursor over JSON text for ``PlainJSONReadable`` readers. Every method answers nil or false, never traps, on
/// text outside the everyday shape; nesting is whatever the reader spells out, so there is no recursion.
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

extension RecordWriteRequest: PlainJSONReadable {
    static func plainJSON(_ bytes: UnsafeBufferPointer<UInt8>) -> RecordWriteRequest? {
        var scanner = PlainJSONScanner(bytes)
        var meta: Meta?
        var data: [String: String]?
        var signature: String?
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            switch key {
            case "meta":
                meta = Meta.plainJSON(&scanner)
                return meta != nil
            case "data":
                if scanner.null() { return true }
                data = scanner.stringMap()
                return data != nil
            case "rec_sig":
                if scanner.null() { return true }
                signature = scanner.string()
                return signature != nil
            default:
                return false
            }
        }
        guard read, scanner.isAtEnd, let meta else { return nil }
        return RecordWriteRequest(meta: meta, data: data, recordSignature: signature)
    }
}

extension RecordWriteRequest.Meta {
    fileprivate static func plainJSON(_ scanner: inout PlainJSONScanner) -> Self? {
        var meta = Self(writerID: nil, userID: nil, type: nil, plain: nil)
        var seen = SeenKeys()
        let read = scanner.object { scanner, key in
            guard seen.insert(key) else { return false }
            if key == "plain" {
                if scanner.null() { return true }
                meta.plain = scanner.stringMap()
                return meta.plain != nil
            }
            let member: WritableKeyPath<Self, String?>
            switch key {
            case "writer_id": member = \.writerID
            case "user_id": member = \.userID
            case "type": member = \.type
            default: return false
            }
            if scanner.null() { return true }
            meta[keyPath: member] = scanner.string()
            return meta[keyPath: member] != nil
        }
        return read ? meta : nil
    }
}

/// The keys of an object with a few known members seen so far: a short list, not a hash set (its reader stops at
/// the first unknown key, so the list never grows past the members and one more).
private struct SeenKeys {
    private var keys: [String] = []

    /// Whether `key` is new; records it.
    mutating func insert(_ key: String) -> Bool {
        guard !keys.contains(key) else { return false }
        keys.append(key)
        return true
    }
}
