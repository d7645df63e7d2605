// Strongroom — SPDX-License-Identifier: Apache-2.0

/// Any JSON value, for objects the server stores and echoes without interpreting every field (notes).
public indirect enum JSONValue: Codable, Sendable, Hashable {
    /// `null`
    case null
    /// `true` or `false`
    case bool(Bool)
    /// A number (integers up to 2^53 stay exact and are written without a fraction).
    case number(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object.
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {  // the next type is tried instead
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {  // the next type is tried instead
            self = .number(value)
        } else if let value = try? container.decode(String.self) {  // the next type is tried instead
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {  // the next type is tried instead
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value):
            if Self.isWrittenAsInteger(value) {
                try container.encode(Int64(value))
            } else {
                try container.encode(value)
            }
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// Whether `number` is written as an integer (a whole number below 10¹⁵ in magnitude, `-0` as `0`) rather than
    /// as a `Double`: the rule every writer of a `JSONValue` follows, so that the same value has the same bytes.
    package static func isWrittenAsInteger(_ number: Double) -> Bool {
        number.rounded() == number && abs(number) < 1e15
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The object's members, if this is an object.
    public var objectValue: [String: JSONValue]? {
        if case .object(let value) = self { return value }
        return nil
    }

    /// The number as an integer, if this is a whole number that fits in `Int64`.
    ///
    /// Fractions, infinities, NaN and magnitudes beyond `Int64` (such as `1e300`) give `nil`, never a trap.
    public var integerValue: Int64? {
        if case .number(let value) = self { return Int64(exactly: value) }
        return nil
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }
}
