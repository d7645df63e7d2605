// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A client's X25519 public key, the `curve25519` value in E3DB's `public_key` objects.
public struct EncryptionPublicKey: RawPublicKey {
    public static var byteCount: Int { Sodium.Box.publicKeyByteCount }
    public static var algorithm: String { "X25519" }

    public let rawRepresentation: Data

    public init(checkedRawRepresentation bytes: Data) {
        precondition(bytes.count == Self.byteCount)
        self.rawRepresentation = bytes
    }

}
