// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FileCipher {
    /// What re-wrapping a file's prologue comes to: nothing (its key is sealed under the new access key already),
    /// or the prologue with its key sealed under the new one.
    public enum PrologueRewrap: Sendable, Hashable {
        /// Sealed under the new key already.
        case current
        /// The new prologue, of the same length.
        case rewrapped(String)
    }

    /// The dotted prologue of an E3DB file (`3.EDK.EDKN.`, the 100 bytes before the stream header) with its stream
    /// key sealed under `newKey` instead of the first of `oldKeys` that opens it (a fresh nonce): the file's
    /// stream, and so its plaintext, is untouched (docs/design/Revocation.md, "Files"). Only the 32-byte stream key
    /// is decrypted, into a buffer that wipes itself.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a prologue not of that shape;
    ///   ``CryptoError/Code/authenticationFailed`` when the key opens under none of the keys.
    public static func rewrapPrologue(
        _ prologue: String,
        from oldKeys: [AccessKey],
        to newKey: AccessKey,
        using random: some RandomSource = .system
    ) throws(CryptoError)
        -> PrologueRewrap
    {
        let parts = prologue.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard prologue.utf8.count <= FileFormat.maximumPrologueSize, parts.count == 4,
            parts[0].elementsEqual(FileFormat.version.utf8), parts[3].isEmpty,
            let sealedKey = try? Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
            let nonce = try? Base64URL.decode(String(decoding: parts[2], as: UTF8.self)),
            sealedKey.count == Sodium.SecretStream.keyByteCount + Sodium.SecretBox.macByteCount,
            nonce.count == Sodium.SecretBox.nonceByteCount
        else {
            throw CryptoError(.invalidFormat, "the file's header is not E3DB's 3.EDK.EDKN.")
        }
        if newKey.openWrappedKey(sealedKey, nonce: nonce) != nil { return .current }
        guard let streamKey = oldKeys.lazy.compactMap({ $0.openWrappedKey(sealedKey, nonce: nonce) }).first else {
            throw CryptoError(.authenticationFailed, "the file's key opens under none of the access keys")
        }
        let (box, newNonce) = newKey.wrapKey(streamKey, using: random)
        return .rewrapped("\(FileFormat.version).\(Base64URL.encode(box)).\(Base64URL.encode(newNonce)).")
    }
}
