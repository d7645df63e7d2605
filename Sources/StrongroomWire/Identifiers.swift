// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A UUID naming one kind of thing, written on the wire in lowercase canonical form.
///
/// `Kind` only tells the kinds apart: a ``RecordID`` passed where a ``ClientID`` belongs (or a `String`) does not
/// compile, although both are UUIDs underneath.
public struct Identifier<Kind>: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The UUID.
    public let uuid: UUID

    /// Wraps a UUID.
    public init(_ uuid: UUID) { self.uuid = uuid }

    /// Parses any-case UUID text; nil when it is not a UUID.
    ///
    /// Accepts the canonical form only — 36 characters, hyphens at offsets 8, 13, 18 and 23, hex digits elsewhere —
    /// and reads it as `UUID(uuidString:)` does, without its `sscanf` (a hot spot of every authenticated request).
    /// Foundation on Linux also takes a sign, a space or `0x` inside a group; those are refused here.
    public init?(_ text: some StringProtocol) {
        var string = String(text)
        guard let uuid = string.withUTF8({ Self.parse($0) }) else { return nil }
        self.uuid = uuid
    }

    /// A new random identifier (a version-4 UUID from the system's secure generator).
    public static func random() -> Self { Self(SecureRandom.uuid()) }

    /// The wire form: lowercase, hyphenated.
    public var description: String {
        withUnsafeBytes(of: uuid.uuid) { bytes in
            String(unsafeUninitializedCapacity: 36) { output in
                var at = 0
                for (index, byte) in bytes.enumerated() {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        output[at] = UInt8(ascii: "-")
                        at += 1
                    }
                    output[at] = lowercaseHexDigit(byte >> 4)
                    output[at + 1] = lowercaseHexDigit(byte & 0x0F)
                    at += 2
                }
                return at
            }
        }
    }

    private static func parse(_ text: UnsafeBufferPointer<UInt8>) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let complete = withUnsafeMutableBytes(of: &bytes) { output -> Bool in
            var at = 0
            var index = 0
            while index < 36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard text[index] == UInt8(ascii: "-") else { return false }
                    index += 1
                    continue
                }
                guard let high = hexDigitValue(text[index]), let low = hexDigitValue(text[index + 1]) else {
                    return false
                }
                output[at] = high << 4 | low
                at += 1
                index += 2
            }
            return at == 16
        }
        return complete ? UUID(uuid: bytes) : nil
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        guard let id = Identifier(try container.decode(String.self)) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a UUID")
        }
        self = id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}

/// The kind of ``ClientID``.
public enum ClientIdentifierKind {}

/// The kind of ``RecordID``.
public enum RecordIdentifierKind {}

/// A client's ID.
public typealias ClientID = Identifier<ClientIdentifierKind>

/// A record's ID.
public typealias RecordID = Identifier<RecordIdentifierKind>
