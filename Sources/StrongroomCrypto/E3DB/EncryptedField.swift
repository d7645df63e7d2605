// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One encrypted record field in E3DB's wire form `EDK.EDKN.EF.EFN`.
///
/// - `EDK`: the field's random data key, sealed with the access key (`crypto_secretbox`, 48 bytes);
/// - `EDKN`: that box's 24-byte nonce;
/// - `EF`: the UTF-8 value sealed with the data key (MAC ‖ ciphertext);
/// - `EFN`: that box's 24-byte nonce.
///
/// Each part is unpadded base64url. See ``FieldCipher`` to create and open them.
public struct EncryptedField: Sendable, Hashable, CustomStringConvertible {
    /// The sealed data key (`EDK`, 48 bytes).
    public let encryptedDataKey: Data
    /// The data key's nonce (`EDKN`, 24 bytes).
    public let dataKeyNonce: Data
    /// The sealed value (`EF`, at least 16 bytes).
    public let encryptedValue: Data
    /// The value's nonce (`EFN`, 24 bytes).
    public let valueNonce: Data

    init(encryptedDataKey: Data, dataKeyNonce: Data, encryptedValue: Data, valueNonce: Data) {
        self.encryptedDataKey = encryptedDataKey
        self.dataKeyNonce = dataKeyNonce
        self.encryptedValue = encryptedValue
        self.valueNonce = valueNonce
    }

    /// Parses the wire form.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` unless there are exactly four base64url parts with the
    ///   lengths above.
    public init(wireFormat: String) throws(CryptoError) {
        let parts = wireFormat.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 4 else {
            throw .invalidFormat("an encrypted field has four dot-separated parts, found \(parts.count)")
        }
        var decoded: [Data] = []
        decoded.reserveCapacity(4)
        for part in parts {
            guard let text = String(part) else { throw .invalidFormat("an encrypted field part is not text") }
            do {
                decoded.append(try Base64URL.decode(text, padding: .allowed))
            } catch {
                throw .invalidFormat("an encrypted field part is not base64url", underlying: error)
            }
        }
        guard decoded[0].count == Sodium.SecretBox.keyByteCount + Sodium.SecretBox.macByteCount,
            decoded[1].count == Sodium.SecretBox.nonceByteCount,
            decoded[2].count >= Sodium.SecretBox.macByteCount,
            decoded[3].count == Sodium.SecretBox.nonceByteCount
        else {
            throw .invalidFormat("an encrypted field part has the wrong length")
        }
        self.init(
            encryptedDataKey: decoded[0],
            dataKeyNonce: decoded[1],
            encryptedValue: decoded[2],
            valueNonce: decoded[3]
        )
    }

    /// The wire form `EDK.EDKN.EF.EFN`.
    public var wireFormat: String {
        [encryptedDataKey, dataKeyNonce, encryptedValue, valueNonce].map { Base64URL.encode($0) }
            .joined(separator: ".")
    }

    public var description: String { "EncryptedField(\(encryptedValue.count - Sodium.SecretBox.macByteCount) bytes)" }
}
