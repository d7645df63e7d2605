// Strongroom — SPDX-License-Identifier: Apache-2.0
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
    public init?(_ text: some StringProtocol) {
        guard let uuid = UUID(uuidString: String(text)) else { return nil }
        self.uuid = uuid
    }

    /// The wire form: lowercase, hyphenated.
    public var description: String { uuid.uuidString.lowercased() }

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
