// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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
        var text = wireFormat
        let result: Result<[Data], CryptoError> = text.withUTF8 { utf8 in
            Result { () throws(CryptoError) -> [Data] in try Self.parts(of: UnsafeRawBufferPointer(utf8)) }
        }
        let decoded = try result.get()
        guard decoded[0].count == Sodium.SecretBox.keyByteCount + Sodium.SecretBox.macByteCount,
            decoded[1].count == Sodium.SecretBox.nonceByteCount,
            decoded[2].count >= Sodium.SecretBox.macByteCount,
            decoded[3].count == Sodium.SecretBox.nonceByteCount
        else {
            throw CryptoError(.invalidFormat, "an encrypted field part has the wrong length")
        }
        self.init(
            encryptedDataKey: decoded[0],
            dataKeyNonce: decoded[1],
            encryptedValue: decoded[2],
            valueNonce: decoded[3]
        )
    }

    /// Splits on `.` into exactly four parts and decodes each.
    private static func parts(of utf8: UnsafeRawBufferPointer) throws(CryptoError) -> [Data] {
        var parts: [Data] = []
        parts.reserveCapacity(4)
        var start = 0
        while true {
            guard parts.count < 4 else {
                throw CryptoError(.invalidFormat, "an encrypted field has more than four parts")
            }
            // memchr, not a byte loop: a 64 KiB value is 87 KiB of text to scan.
            let rest = UnsafeRawBufferPointer(rebasing: utf8[start...])
            let end: Int
            if let base = rest.baseAddress, let dot = memchr(base, Int32(UInt8(ascii: ".")), rest.count) {
                end = start + (UnsafeRawPointer(dot) - base)
            } else {
                end = utf8.count
            }
            do {
                parts.append(
                    try Base64URL.decode(UnsafeRawBufferPointer(rebasing: utf8[start..<end]), padding: .allowed)
                )
            } catch {
                throw CryptoError(.invalidFormat, "an encrypted field part is not base64url", underlying: error)
            }
            guard end < utf8.count else { break }
            start = end + 1
        }
        guard parts.count == 4 else {
            throw CryptoError(.invalidFormat, "an encrypted field has four dot-separated parts, found \(parts.count)")
        }
        return parts
    }

    /// The wire form `EDK.EDKN.EF.EFN`, written in one pass.
    public var wireFormat: String {
        let parts = [encryptedDataKey, dataKeyNonce, encryptedValue, valueNonce]
        let length = parts.reduce(3) { $0 + Base64URL.encodedLength(of: $1.count) }
        return String(unsafeUninitializedCapacity: length) { output in
            var written = 0
            for (index, part) in parts.enumerated() {
                if index > 0 {
                    output[written] = UInt8(ascii: ".")
                    written += 1
                }
                written += part.withUnsafeBytes { bytes in
                    Base64URL.encode(bytes, into: UnsafeMutableBufferPointer(rebasing: output[written...]))
                }
            }
            return written
        }
    }

    public var description: String { "EncryptedField(\(encryptedValue.count - Sodium.SecretBox.macByteCount) bytes)" }
}
