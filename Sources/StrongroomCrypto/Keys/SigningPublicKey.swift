// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An Ed25519 public key, the `ed25519` value in E3DB's `signing_key` objects.
public struct SigningPublicKey: RawPublicKey {
    public static var byteCount: Int { Sodium.Sign.publicKeyByteCount }
    public static var algorithm: String { "Ed25519" }

    public let rawRepresentation: Data

    public init(checkedRawRepresentation bytes: Data) {
        precondition(bytes.count == Self.byteCount)
        self.rawRepresentation = bytes
    }

    /// Whether `signature` is a valid Ed25519 signature of `message` under this key.
    ///
    /// An invalid signature is an expected outcome, so this returns `false` rather than throwing; the
    /// higher-level `verify` functions turn it into ``CryptoError/Code/invalidSignature``.
    public func isValidSignature(_ signature: some DataProtocol, for message: some DataProtocol) -> Bool {
        let signatureBytes = Array(signature)
        let messageBytes = Array(message)
        return signatureBytes.withUnsafeBytes { sig in
            messageBytes.withUnsafeBytes { msg in
                rawRepresentation.withUnsafeBytes { key in
                    Sodium.Sign.isValid(signature: sig, for: msg, publicKey: key)
                }
            }
        }
    }
}
