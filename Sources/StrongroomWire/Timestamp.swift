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
        let fraction = microseconds - Int64(seconds) * 1_000_000
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let micros = String(fraction)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))"
            + "T\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + String(repeating: "0", count: 6 - micros.count) + micros + "Z"
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
