// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Reads a stored body (JSON text, normally the datastore's own canonical output) straight into `JSONValue`, without
/// Foundation's object graph: about four times faster than `JSONSerialization` plus the conversion.
///
/// Strict RFC 8259 JSON: one object, nested at most ``maximumDepth`` levels, strings with every escape JSON has
/// (surrogate pairs joined, a lone surrogate refused), numbers as `Double` (Swift's correctly rounded parse),
/// nothing after the value but whitespace. Anything else is a typed error, never a trap: a stored body that does not
/// read is a damaged file.
struct JSONReader {
    /// Why the text is not a JSON object this reader accepts.
    struct Malformed: Error {}

    /// The deepest nesting read (the datastore writes at most `DatastoreLimits.maximumDepth`, itself capped lower).
    static let maximumDepth = 512

    /// The object `bytes` hold.
    static func object(from bytes: UnsafeRawBufferPointer) throws(Malformed) -> [String: JSONValue] {
        var reader = JSONReader(bytes: bytes)
        reader.skipWhitespace()
        guard case .object(let members) = try reader.value(depth: 1) else { throw Malformed() }
        reader.skipWhitespace()
        guard reader.position == bytes.count else { throw Malformed() }
        return members
    }

    private let bytes: UnsafeRawBufferPointer
    private var position = 0

    private init(bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private var current: UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
    }

    private mutating func expect(_ byte: UInt8) throws(Malformed) {
        guard current == byte else { throw Malformed() }
        position += 1
    }

    private mutating func literal(_ text: StaticString, _ value: JSONValue) throws(Malformed) -> JSONValue {
        let count = text.utf8CodeUnitCount
        guard bytes.count - position >= count else { throw Malformed() }
        for offset in 0..<count where bytes[position + offset] != text.utf8Start[offset] { throw Malformed() }
        position += count
        return value
    }

    private mutating func value(depth: Int) throws(Malformed) -> JSONValue {
        guard depth <= Self.maximumDepth, let byte = current else { throw Malformed() }
        switch byte {
        case UInt8(ascii: "{"):
            position += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if current == UInt8(ascii: "}") {
                position += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                skipWhitespace()
                members[key] = try value(depth: depth + 1)
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "}"))
                return .object(members)
            }
        case UInt8(ascii: "["):
            position += 1
            var items: [JSONValue] = []
            skipWhitespace()
            if current == UInt8(ascii: "]") {
                position += 1
                return .array(items)
            }
            while true {
                skipWhitespace()
                items.append(try value(depth: depth + 1))
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    position += 1
                    continue
                }
                try expect(UInt8(ascii: "]"))
                return .array(items)
            }
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): return try literal("true", .bool(true))
        case UInt8(ascii: "f"): return try literal("false", .bool(false))
        case UInt8(ascii: "n"): return try literal("null", .null)
        default: return .number(try number())
        }
    }

    /// A number in JSON's grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private mutating func number() throws(Malformed) -> Double {
        let start = position
        if current == UInt8(ascii: "-") { position += 1 }
        func digits(_ reader: inout JSONReader) -> Int {
            let from = reader.position
            while let byte = reader.current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                reader.position += 1
            }
            return reader.position - from
        }
        let integerStart = position
        let integerDigits = digits(&self)
        guard integerDigits > 0, integerDigits == 1 || bytes[integerStart] != UInt8(ascii: "0") else {
            throw Malformed()
        }
        let isInteger = current != UInt8(ascii: ".") && current != UInt8(ascii: "e") && current != UInt8(ascii: "E")
        if isInteger, integerDigits <= 15 {
            // Below 10^15, far inside a Double's 2^53 exact integers: the digits' value is the parse, no text made.
            var magnitude: Int64 = 0
            for offset in integerStart..<position { magnitude = magnitude * 10 + Int64(bytes[offset] &- 0x30) }
            return integerStart > start ? -Double(magnitude) : Double(magnitude)
        }
        if current == UInt8(ascii: ".") {
            position += 1
            guard digits(&self) > 0 else { throw Malformed() }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            position += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
            guard digits(&self) > 0 else { throw Malformed() }
        }
        // A JSON number is valid Swift float syntax; at most a few hundred bytes in a sane body, and Double(_:)
        // saturates to ±infinity rather than failing on huge exponents, which the body checks refuse later.
        guard position - start <= 1024,
            let value = Double(
                String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
            ),
            value.isFinite
        else { throw Malformed() }
        return value
    }

    private mutating func string() throws(Malformed) -> String {
        try expect(UInt8(ascii: "\""))
        let start = position
        // The common case: no escape, straight from the bytes (valid UTF-8 checked by String's decoding; the writer
        // never writes invalid UTF-8, and a damaged byte becomes U+FFFD rather than a trap).
        position = JSONPlainRun.end(in: bytes, from: position)
        guard let stop = current, stop >= 0x20 else { throw Malformed() }
        if stop == UInt8(ascii: "\"") {
            position += 1
            return String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<position - 1]), as: UTF8.self)
        }
        var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<position]))
        while true {
            guard let byte = current else { throw Malformed() }
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: decoded, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw Malformed() }
                position += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        // A high surrogate must be followed by `\u` and a low one.
                        guard current == UInt8(ascii: "\\") else { throw Malformed() }
                        position += 1
                        try expect(UInt8(ascii: "u"))
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw Malformed() }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw Malformed() }
                    decoded.append(contentsOf: String(Character(unicode)).utf8)
                default: throw Malformed()
                }
            default:
                guard byte >= 0x20 else { throw Malformed() }
                decoded.append(byte)
            }
        }
    }

    private mutating func hex4() throws(Malformed) -> UInt32 {
        guard bytes.count - position >= 4 else { throw Malformed() }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[position]
            position += 1
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Malformed()
            }
            value = value << 4 | UInt32(digit)
        }
        return value
    }
}
