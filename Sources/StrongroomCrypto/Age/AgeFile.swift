// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// age v1 files (c2sp.org/age), binary (not armored), to X25519 and post-quantum X-Wing recipients (the article
/// "age files"): readable by age 1.3 and later and by every age implementation that speaks `mlkem768x25519`, and
/// checked against C2SP's CCTV age vectors.
///
/// ```swift
/// let identity = AgeIdentity.generate()                     // AGE-SECRET-KEY-PQ-1…
/// let file = try AgeFile.encrypt(Data("hello".utf8), to: [identity.recipient])
/// let plain = try AgeFile.decrypt(file, with: [identity])
/// ```
///
/// For files of any size, ``AgeEncryptor`` and ``AgeDecryptor`` work chunk by chunk in constant memory.
public enum AgeFile {
    /// `plaintext` encrypted to `recipients`.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for no recipient, or post-quantum recipients mixed with X25519
    ///   ones (an X25519 stanza would undo what the post-quantum one protects).
    public static func encrypt(_ plaintext: Data, to recipients: [AgeRecipient]) throws(CryptoError) -> Data {
        var encryptor = try AgeEncryptor(recipients: recipients)
        var output = encryptor.prelude
        output += try encryptor.update(plaintext)
        output += try encryptor.finish()
        return output
    }

    /// The plaintext of `file`, opened with whichever of `identities` it was encrypted to.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a header that is malformed (or a stanza of an identity's type
    ///   that is); ``CryptoError/Code/noMatchingIdentity`` when no stanza opens with these identities;
    ///   ``CryptoError/Code/authenticationFailed`` when the header's MAC or a payload chunk does not verify;
    ///   ``CryptoError/Code/truncated`` for a file cut short. No plaintext is returned on any failure.
    public static func decrypt(_ file: Data, with identities: [AgeIdentity]) throws(CryptoError) -> Data {
        var decryptor = AgeDecryptor(identities: identities)
        var output = try decryptor.update(file)
        output += try decryptor.finish()
        return output
    }
}

/// Encrypts an age file chunk by chunk: write ``prelude`` (the header and the payload's nonce), then what each
/// ``update(_:)`` returns, then what ``finish()`` returns.
public struct AgeEncryptor: Sendable {
    /// The header and the payload nonce: the file's first bytes.
    public let prelude: Data
    private var sealer: AgePayloadSealer
    private var pending = Data()

    /// An encryptor to `recipients` under a fresh file key.
    ///
    /// - Throws: ``CryptoError/Code/invalidParameters`` for no recipient, more than 4,096, or post-quantum recipients
    ///   mixed with X25519 ones.
    public init(recipients: [AgeRecipient]) throws(CryptoError) {
        guard !recipients.isEmpty, recipients.count <= AgeHeader.maximumStanzas else {
            throw CryptoError(.invalidParameters, "an age file has 1 to \(AgeHeader.maximumStanzas) recipients")
        }
        let postQuantum = recipients.filter(\.isPostQuantum).count
        guard postQuantum == 0 || postQuantum == recipients.count else {
            throw CryptoError(
                .invalidParameters,
                "post-quantum recipients cannot be mixed with X25519 ones: the X25519 stanza would undo the protection"
            )
        }
        let fileKey = SecureRandom.bytes(count: AgeStanzas.fileKeyByteCount)
        var stanzas: [AgeStanza] = []
        for recipient in recipients { stanzas.append(try AgeStanzas.wrap(fileKey, to: recipient)) }
        let header = try AgeHeader(stanzas: stanzas, fileKey: fileKey)
        let nonce = SecureRandom.data(count: AgePayloadKey.nonceByteCount)
        sealer = AgePayloadSealer(key: try AgePayloadKey(fileKey: fileKey, nonce: nonce))
        prelude = header.encoded + nonce
    }

    /// The sealed chunks `plaintext` completes (a full chunk is held back until more follows: the last chunk may be
    /// full).
    public mutating func update(_ plaintext: Data) throws(CryptoError) -> Data {
        pending += plaintext
        var output = Data()
        let size = AgePayloadKey.chunkByteCount
        var start = pending.startIndex
        while pending.endIndex - start > size {
            output += try sealer.seal(pending[start..<start + size], isLast: false)
            start += size
        }
        pending = Data(pending[start...])
        return output
    }

    /// The last chunk.
    public mutating func finish() throws(CryptoError) -> Data {
        defer { pending = Data() }
        return try sealer.seal(pending, isLast: true)
    }
}

/// Decrypts an age file chunk by chunk: feed its bytes to ``update(_:)`` in any pieces, each call returning the
/// plaintext verified so far, then call ``finish()``. Plaintext is only ever returned after its chunk's tag verified;
/// a failure part-way means what was returned before belongs to a file that turned out damaged — stage the output and
/// keep it only when ``finish()`` succeeds.
public struct AgeDecryptor: Sendable {
    private let identities: [AgeIdentity]
    private var buffer = Data()
    private var opener: AgePayloadOpener?
    /// How far the buffer was searched for the MAC line, so a header arriving in small pieces is parsed once it is
    /// complete (`Int.max`: found).
    private var searched = 0

    /// A decryptor trying `identities`.
    public init(identities: [AgeIdentity]) { self.identities = identities }

    /// The plaintext of the chunks `bytes` completes.
    ///
    /// - Throws: what ``AgeFile/decrypt(_:with:)`` throws.
    public mutating func update(_ bytes: Data) throws(CryptoError) -> Data {
        buffer += bytes
        if opener == nil {
            guard try readHeader() else { return Data() }
        }
        var output = Data()
        let size = AgePayloadKey.chunkByteCount + AgePayloadKey.tagByteCount
        var start = buffer.startIndex
        // A full chunk is opened once more follows: without more it may be the last.
        while buffer.endIndex - start > size, var current = opener {
            output += try current.open(buffer[start..<start + size], isLast: false)
            opener = current
            start += size
        }
        buffer = Data(buffer[start...])
        return output
    }

    /// The plaintext of the last chunk.
    ///
    /// - Throws: ``CryptoError/Code/truncated`` when the file ends before its header or its last chunk; what
    ///   ``AgeFile/decrypt(_:with:)`` throws.
    public mutating func finish() throws(CryptoError) -> Data {
        if opener == nil {
            guard try readHeader(whatever: true) else {
                throw CryptoError(.truncated, "the age file ends inside its header")
            }
        }
        guard var current = opener else { throw CryptoError(.truncated, "the age file ends inside its header") }
        guard !buffer.isEmpty else { throw CryptoError(.truncated, "the age file ends before its last chunk") }
        let plaintext = try current.open(buffer, isLast: true)
        opener = current
        buffer = Data()
        return plaintext
    }

    /// Parses the header and the nonce once the buffer holds them; false while it does not yet. Until the buffer
    /// holds a complete MAC line (or more than a header may take), only the new bytes are searched for one, unless
    /// `whatever` (the file ended).
    private mutating func readHeader(whatever: Bool = false) throws(CryptoError) -> Bool {
        if !whatever, searched != Int.max, buffer.count <= AgeHeader.maximumBytes {
            let from = buffer.startIndex + max(0, searched - 4)
            guard let mark = buffer[from...].firstRange(of: Data("\n---".utf8)) else {
                searched = buffer.count
                return false
            }
            guard buffer[mark.upperBound...].contains(0x0A) else {
                searched = mark.lowerBound - buffer.startIndex + 4  // the MAC line's end is still to come
                return false
            }
            searched = Int.max
        }
        let parsed: (header: AgeHeader, length: Int)
        do {
            parsed = try AgeHeader.parse(buffer)
        } catch  where error.code == .truncated {
            return false
        }
        guard buffer.count >= parsed.length + AgePayloadKey.nonceByteCount else { return false }
        let fileKey = try Self.fileKey(parsed.header, identities)
        guard try parsed.header.isAuthentic(under: fileKey) else {
            throw CryptoError(.authenticationFailed, "the age header's MAC does not verify: the header was changed")
        }
        let nonceStart = buffer.startIndex + parsed.length
        let nonce = Data(buffer[nonceStart..<nonceStart + AgePayloadKey.nonceByteCount])
        opener = AgePayloadOpener(key: try AgePayloadKey(fileKey: fileKey, nonce: nonce))
        buffer = Data(buffer[(nonceStart + AgePayloadKey.nonceByteCount)...])
        return true
    }

    /// The file key the first stanza that opens gives. Every stanza of an identity's type is checked well-formed first,
    /// so a malformed one is a header failure wherever it stands.
    private static func fileKey(_ header: AgeHeader, _ identities: [AgeIdentity]) throws(CryptoError) -> SecureBytes {
        var found: SecureBytes?
        for identity in identities {
            for stanza in header.stanzas {
                guard let key = try AgeStanzas.unwrap(stanza, with: identity) else { continue }
                guard key.count == AgeStanzas.fileKeyByteCount else {
                    throw CryptoError(.invalidFormat, "an age stanza wraps a file key that is not 16 bytes")
                }
                if found == nil { found = key }
            }
        }
        guard let found else {
            throw CryptoError(.noMatchingIdentity, "the age file is not encrypted to any of these identities")
        }
        return found
    }
}
