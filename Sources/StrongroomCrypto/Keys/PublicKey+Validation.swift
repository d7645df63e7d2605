// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension EncryptionPublicKey {
    /// Whether the key can take part in a key agreement: not the zero point nor another point of small order
    /// (with which every shared secret is a known constant).
    ///
    /// Checked by a scalar multiplication with a random scalar, which libsodium refuses for small-order points.
    public var isUsableForKeyAgreement: Bool {
        var scalar = [UInt8](repeating: 0, count: Int(crypto_scalarmult_SCALARBYTES))
        var shared = [UInt8](repeating: 0, count: Int(crypto_scalarmult_BYTES))
        defer {
            Wipe.bytes(&scalar)
            Wipe.bytes(&shared)
        }
        randombytes_buf(&scalar, scalar.count)
        let result: Int32 = rawRepresentation.withUnsafeBytes { point in
            guard let base = point.baseAddress else { return -1 }
            return crypto_scalarmult(&shared, scalar, base.assumingMemoryBound(to: UInt8.self))
        }
        return result == 0
    }
}

extension SigningPublicKey {
    /// Whether the key is a valid Ed25519 point on the main subgroup and not of small order (libsodium's
    /// `crypto_core_ed25519_is_valid_point`): such keys could never have come from a real key pair.
    public var isValidPoint: Bool {
        rawRepresentation.withUnsafeBytes { point in
            guard let base = point.baseAddress else { return false }
            return crypto_core_ed25519_is_valid_point(base.assumingMemoryBound(to: UInt8.self)) == 1
        }
    }
}
