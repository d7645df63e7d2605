// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A public key that is a fixed number of raw bytes (X25519's and Ed25519's 32), with its base64url wire form.
///
/// Conforming types supply the length, the algorithm's name and a validated initialiser; the checks, the
/// base64url form and a `description` that shows only a prefix come from here. Public keys are not secret; they
/// compare and hash by value.
public protocol RawPublicKey: Sendable, Hashable, CustomStringConvertible {
    /// The key length in bytes.
    static var byteCount: Int { get }
    /// The algorithm, such as `X25519`.
    static var algorithm: String { get }
    /// The raw key bytes.
    var rawRepresentation: Data { get }
    /// Wraps bytes already checked to be ``byteCount`` long.
    init(checkedRawRepresentation: Data)
}

extension RawPublicKey {
    /// Creates a key from its raw bytes.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` when `rawRepresentation` is not ``byteCount`` bytes.
    public init(rawRepresentation: some DataProtocol) throws(CryptoError) {
        guard rawRepresentation.count == Self.byteCount else {
            throw CryptoError(.invalidKey, "an \(Self.algorithm) public key is \(Self.byteCount) bytes")
        }
        self.init(checkedRawRepresentation: Data(rawRepresentation))
    }

    /// Creates a key from its unpadded (or padded) base64url form.
    ///
    /// - Throws: ``CryptoError/Code/invalidKey`` for bad base64url or a wrong length.
    public init(base64URLEncoded text: String) throws(CryptoError) {
        let bytes: Data
        do {
            bytes = try Base64URL.decode(text, padding: .allowed)
        } catch {
            throw CryptoError(.invalidKey, "an \(Self.algorithm) public key is not base64url", underlying: error)
        }
        try self.init(rawRepresentation: bytes)
    }

    /// The unpadded base64url form, as sent on the wire.
    public var base64URLEncoded: String { Base64URL.encode(rawRepresentation) }

    /// `TypeName(algorithm, first 8 characters…)`, enough to tell keys apart in logs.
    public var description: String { "\(Self.self)(\(Self.algorithm), \(base64URLEncoded.prefix(8))…)" }
}
