// Strongroom — SPDX-License-Identifier: Apache-2.0

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// E3DB timestamps: UTC, microsecond precision, always written `YYYY-MM-DDTHH:MM:SS.ffffffZ` (exactly six
/// fractional digits and a literal `Z`; the Python SDK crashes on anything else).
public struct Timestamp: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    public var microseconds: Int64

    /// Wraps microseconds since the Unix epoch.
    public init(microseconds: Int64) { self.microseconds = microseconds }

    public static func < (lhs: Timestamp, rhs: Timestamp) -> Bool { lhs.microseconds < rhs.microseconds }

    /// The wire form, e.g. `2026-05-01T17:04:05.123456Z`.
    public var description: String {
        var seconds = time_t(microseconds.floorDivided(by: 1_000_000))
        let remainder = microseconds % 1_000_000  // not `microseconds - seconds * 1e6`, which overflows near Int64.min
        let fraction = Int(remainder < 0 ? remainder + 1_000_000 : remainder)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        // Digits written in place (this runs twice for every record the server answers with): `-MM-DDTHH:MM:SS.ffffffZ`
        // after a year of four digits, or, outside 0…9999 (which the wire form cannot carry), the year as it is.
        var text = Array("0000-00-00T00:00:00.000000Z".utf8)
        func put(_ value: Int, at end: Int, width: Int) {
            var rest = value
            for index in stride(from: end - 1, through: end - width, by: -1) {
                text[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
        }
        let year = Int(parts.tm_year) + 1900
        put(Int(parts.tm_mon) + 1, at: 7, width: 2)
        put(Int(parts.tm_mday), at: 10, width: 2)
        put(Int(parts.tm_hour), at: 13, width: 2)
        put(Int(parts.tm_min), at: 16, width: 2)
        put(Int(parts.tm_sec), at: 19, width: 2)
        put(fraction, at: 26, width: 6)
        guard (0...9999).contains(year) else { return String(year) + String(decoding: text[4...], as: UTF8.self) }
        put(year, at: 4, width: 4)
        return String(decoding: text, as: UTF8.self)
    }

    /// Parses ISO 8601 as the SDKs send it: `…Z` or `…±HH:MM`, with 0 to 9 fractional digits.
    public init?(iso8601 text: String) {
        let scalars = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= scalars.count else { return nil }
            var value = 0
            for index in range {
                let byte = scalars[index]
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard scalars.count >= 19, let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            scalars[4] == 0x2D, scalars[7] == 0x2D, scalars[10] == 0x54 || scalars[10] == 0x20, scalars[13] == 0x3A,
            scalars[16] == 0x3A
        else { return nil }
        var index = 19
        var micros: Int64 = 0
        if index < scalars.count, scalars[index] == 0x2E {
            index += 1
            var digits = 0
            while index < scalars.count, (0x30...0x39).contains(scalars[index]) {
                if digits < 6 { micros = micros * 10 + Int64(scalars[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) { micros *= 10 }
        }
        var offsetSeconds = 0
        if index < scalars.count {
            switch scalars[index] {
            case 0x5A:  // Z
                index += 1
            case 0x2B, 0x2D:  // + or -
                let sign = scalars[index] == 0x2B ? 1 : -1
                guard let hours = number((index + 1)..<(index + 3)) else { return nil }
                var minutesIndex = index + 3
                if minutesIndex < scalars.count, scalars[minutesIndex] == 0x3A { minutesIndex += 1 }
                guard let minutes = number(minutesIndex..<(minutesIndex + 2)), hours < 24, minutes < 60 else {
                    return nil
                }
                offsetSeconds = sign * (hours * 3600 + minutes * 60)
                index = minutesIndex + 2
            default:
                return nil
            }
        }
        guard index == scalars.count, (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60,
            second < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let epoch = Int64(timegm(&parts)) - Int64(offsetSeconds)
        self.microseconds = epoch * 1_000_000 + micros
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = Timestamp(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 timestamp")
        }
        self = value
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

extension Int64 {
    fileprivate func floorDivided(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor < 0) ? quotient - 1 : quotient
    }
}
