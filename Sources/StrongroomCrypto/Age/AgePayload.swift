// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// age's payload (c2sp.org/age, "Payload"): a 16-byte nonce, then STREAM — ChaCha20-Poly1305 over 64 KiB chunks under
/// HKDF-SHA256(file key, salt: nonce, info: `payload`), each chunk's nonce its 11-byte big-endian counter and a byte
/// that is 1 on the last chunk. Only the last chunk may be short, and empty only when the whole payload is.
struct AgePayloadKey: Sendable {
    static let nonceByteCount = 16
    static let chunkByteCount = 64 << 10
    static let tagByteCount = 16

    let key: SymmetricKey

    init(fileKey: SecureBytes, nonce: Data) throws(CryptoError) {
        let derived = try HKDFSHA256.deriveKey(from: fileKey, salt: nonce, info: Data("payload".utf8))
        key = derived.withUnsafeBytes { SymmetricKey(data: $0) }
    }

    static func nonce(_ counter: UInt64, isLast: Bool) -> ChaChaPoly.Nonce {
        var bytes = [UInt8](repeating: 0, count: 12)
        for index in 0..<8 { bytes[3 + index] = UInt8(truncatingIfNeeded: counter >> UInt64(8 * (7 - index))) }
        bytes[11] = isLast ? 1 : 0
        // swift-format-ignore: NeverUseForceTry
        return try! ChaChaPoly.Nonce(data: bytes)  // 12 bytes always
    }
}

/// Seals a payload chunk by chunk.
struct AgePayloadSealer: Sendable {
    private let key: AgePayloadKey
    private var counter: UInt64 = 0

    init(key: AgePayloadKey) { self.key = key }

    /// The sealed chunk of `plaintext` (at most 64 KiB; exactly 64 KiB unless `isLast`).
    mutating func seal(_ plaintext: Data, isLast: Bool) throws(CryptoError) -> Data {
        do {
            let box = try ChaChaPoly.seal(
                plaintext,
                using: key.key,
                nonce: AgePayloadKey.nonce(counter, isLast: isLast)
            )
            counter += 1
            return box.ciphertext + box.tag
        } catch {
            throw CryptoError(.invalidParameters, "an age payload chunk could not be sealed", underlying: error)
        }
    }
}

/// Opens a payload chunk by chunk.
struct AgePayloadOpener: Sendable {
    private let key: AgePayloadKey
    private var counter: UInt64 = 0
    private(set) var finished = false

    init(key: AgePayloadKey) { self.key = key }

    /// The plaintext of the sealed chunk `chunk` (at most 64 KiB and its tag), the last when `isLast`.
    ///
    /// - Throws: ``CryptoError/Code/authenticationFailed`` when it does not open (changed, reordered, or a last chunk
    ///   presented as another); ``CryptoError/Code/invalidFormat`` for a short chunk that is not the last, an empty
    ///   last chunk after others, or anything after the last.
    mutating func open(_ chunk: Data, isLast: Bool) throws(CryptoError) -> Data {
        guard !finished else { throw CryptoError(.invalidFormat, "an age payload holds data after its last chunk") }
        guard chunk.count >= AgePayloadKey.tagByteCount,
            chunk.count <= AgePayloadKey.chunkByteCount + AgePayloadKey.tagByteCount
        else { throw CryptoError(.truncated, "an age payload chunk is cut short") }
        guard isLast || chunk.count == AgePayloadKey.chunkByteCount + AgePayloadKey.tagByteCount else {
            throw CryptoError(.invalidFormat, "an age payload chunk other than the last is short")
        }
        guard !(isLast && counter > 0 && chunk.count == AgePayloadKey.tagByteCount) else {
            throw CryptoError(.invalidFormat, "an age payload ends with an empty chunk after others")
        }
        do {
            let box = try ChaChaPoly.SealedBox(
                nonce: AgePayloadKey.nonce(counter, isLast: isLast),
                ciphertext: chunk.dropLast(AgePayloadKey.tagByteCount),
                tag: chunk.suffix(AgePayloadKey.tagByteCount)
            )
            let plaintext = try ChaChaPoly.open(box, using: key.key)
            counter += 1
            finished = isLast
            return plaintext
        } catch {
            throw CryptoError(.authenticationFailed, "an age payload chunk does not open: the file was changed")
        }
    }
}
