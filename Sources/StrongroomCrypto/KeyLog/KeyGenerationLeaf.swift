// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The key log's record of one access-key rotation (``KeyLogEntry/Kind/keyRotated``): the previous key's successor
/// tag in the entry's ID field, and a commitment to the new key (docs/design/Revocation.md, "The key log").
///
/// Both are HMAC-SHA-256 keyed by an access key, over a domain and the `(writer, user, type)` the key is for:
///
/// - the **successor tag** of key *K*: the first 16 bytes of HMAC(*K*, `strongroom/keylog/successor/v1` ‖ 0x00 ‖
///   writer ‖ user ‖ type), where each ID is its 16 bytes and the type its UTF-8 length as two big-endian bytes, then
///   its bytes;
/// - the **commitment** to *K*: HMAC(*K*, `strongroom/keylog/generation/v1` ‖ 0x00 ‖ the same fields).
///
/// So whoever holds a key recognises the leaf that superseded it (its tag) and the leaf that logged it (its
/// commitment), and nobody without the key learns anything from either — not which type, not whose. The leaves of
/// one type chain: the leaf logging generation *n* + 1 carries the tag of generation *n*'s key.
public struct KeyGenerationLeaf: Sendable, Hashable {
    /// The superseded key's successor tag: the entry's 16-byte ID field.
    public let successorTag: UUID
    /// The commitment to the new key.
    public let commitment: KeyLogCommitment

    private static let successorDomain = Array("strongroom/keylog/successor/v1".utf8) + [0]
    private static let commitmentDomain = Array("strongroom/keylog/generation/v1".utf8) + [0]

    /// The leaf that logs the rotation of `(writer, user, type)` from `previous` to `next`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a type longer than 1,024 bytes.
    public init(
        rotating previous: AccessKey,
        to next: AccessKey,
        writer: UUID,
        user: UUID,
        type: String
    ) throws(CryptoError) {
        self.successorTag = try Self.successorTag(of: previous, writer: writer, user: user, type: type)
        self.commitment = try Self.commitment(to: next, writer: writer, user: user, type: type)
    }

    /// The leaf an entry of kind ``KeyLogEntry/Kind/keyRotated`` records; nil for another kind.
    public init?(_ entry: KeyLogEntry) {
        guard entry.kind == .keyRotated, let commitment = entry.commitment else { return nil }
        (self.successorTag, self.commitment) = (entry.clientID, commitment)
    }

    /// A leaf from its two parts (as a server relays them).
    public init(successorTag: UUID, commitment: KeyLogCommitment) {
        (self.successorTag, self.commitment) = (successorTag, commitment)
    }

    /// The entry to append, dated `time` (microseconds since the Unix epoch).
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a time past 2⁶³ − 1.
    public func entry(time: UInt64) throws(CryptoError) -> KeyLogEntry {
        try KeyLogEntry(.keyRotated, by: successorTag, commitment: commitment, time: time)
    }

    /// The tag the leaf superseding `key` carries.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a type longer than 1,024 bytes.
    public static func successorTag(
        of key: AccessKey,
        writer: UUID,
        user: UUID,
        type: String
    ) throws(CryptoError) -> UUID {
        let code = try mac(key, Self.successorDomain, writer: writer, user: user, type: type)
        return code.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// The commitment the leaf logging `key` carries.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for a type longer than 1,024 bytes.
    public static func commitment(
        to key: AccessKey,
        writer: UUID,
        user: UUID,
        type: String
    ) throws(CryptoError) -> KeyLogCommitment {
        KeyLogCommitment(exactly: try mac(key, Self.commitmentDomain, writer: writer, user: user, type: type))
    }

    private static func mac(
        _ key: AccessKey,
        _ domain: [UInt8],
        writer: UUID,
        user: UUID,
        type: String
    ) throws(CryptoError) -> [UInt8] {
        let typeBytes = Array(type.utf8)
        guard typeBytes.count <= 1_024 else {
            throw CryptoError(.invalidParameters, "a key generation leaf takes a type of at most 1,024 bytes")
        }
        var message = domain
        for id in [writer, user] { message += withUnsafeBytes(of: id.uuid) { Array($0) } }
        message += [UInt8(typeBytes.count >> 8), UInt8(typeBytes.count & 0xFF)] + typeBytes
        return message.withUnsafeBytes { HMACSHA256Key(key.secret).authenticationCode(for: $0) }
    }
}
