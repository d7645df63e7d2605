// Strongroom — SPDX-License-Identifier: Apache-2.0
import CSodium
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Decrypts E3DB's file format, version "3", in constant memory.
///
/// Feed ciphertext in pieces of any size with `update(_:into:)`; each authenticated chunk's plaintext is
/// appended to the output as soon as it is complete. Call ``finalize(into:)`` at the end of the input: only then is
/// the plaintext known to be whole.
///
/// - Important: Until ``finalize(into:)`` returns, the output may be a prefix of the file (each chunk is authentic,
///   but later ones may be missing). Write it somewhere provisional and publish it only after `finalize()`;
///   ``FileCipher`` does exactly that.
public struct FileDecryptor: ~Copyable {
    private enum Phase {
        case prologue
        case stream
        case finished
    }

    /// The keys the file may be sealed under, tried in order (one, unless the caller holds older generations).
    private let accessKeys: [AccessKey]
    /// Wiped when released: as `finalize(into:)` ends the decryptor, or when it is dropped before that (a chunk that
    /// failed to authenticate, say). It holds the data key.
    private let stream = SecretStreamState()
    private var phase = Phase.prologue
    private var pending: [UInt8] = []

    /// The most keys ``init(accessKeys:)`` tries; later ones are ignored.
    public static let maximumKeys = 4_096

    /// Prepares to decrypt a file sealed under `accessKey`.
    public init(accessKey: AccessKey) {
        self.init(accessKeys: [accessKey])
    }

    /// Prepares to decrypt a file sealed under one of `accessKeys` (a type's key generations, newest first): the
    /// first whose seal on the file key opens is used. With none (or none that opens) the file fails as under a
    /// wrong key.
    public init(accessKeys: [AccessKey]) {
        SodiumRuntime.ensureInitialized()
        self.accessKeys = Array(accessKeys.prefix(Self.maximumKeys))
    }

    /// Decrypts `ciphertext` and appends every completed chunk's plaintext to `output`.
    ///
    /// - Throws: ``CryptoError/Code/invalidFormat`` for a malformed prologue or data after the final chunk,
    ///   ``CryptoError/Code/unsupportedVersion`` for a version other than "3",
    ///   ``CryptoError/Code/authenticationFailed`` for a wrong access key or an altered, reordered or foreign
    ///   chunk.
    public mutating func update(_ ciphertext: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CryptoError) {
        var input = ciphertext[...]
        if phase == .prologue {
            pending.append(contentsOf: input)
            input = input.dropFirst(input.count)
            guard let consumed = try parsePrologue() else { return }
            let rest = Array(pending[consumed...])
            pending.removeAll(keepingCapacity: true)
            try rest.withBytes { bytes throws(CryptoError) in try consumeStream(bytes[...], into: &output) }
            return
        }
        try consumeStream(input, into: &output)
    }

    /// Decrypts `ciphertext` and appends every completed chunk's plaintext to `output`.
    public mutating func update(_ ciphertext: some DataProtocol, into output: inout [UInt8]) throws(CryptoError) {
        let bytes = Array(ciphertext)
        try bytes.withBytes { buffer throws(CryptoError) in try update(buffer, into: &output) }
    }

    /// Ends the input and appends the last chunk's plaintext to `output`.
    ///
    /// - Throws: ``CryptoError/Code/truncated`` when the final chunk never came,
    ///   ``CryptoError/Code/authenticationFailed`` when the last chunk does not authenticate.
    public consuming func finalize(into output: inout [UInt8]) throws(CryptoError) {
        // `self` ends here, so its stream state is released, and wiped, on every path out.
        switch phase {
        case .prologue:
            throw CryptoError(.truncated, "the file ended inside its header")
        case .finished:
            return
        case .stream:
            guard !pending.isEmpty else { throw CryptoError(.truncated, "the file ended before its final chunk") }
            let last = pending
            pending.removeAll()
            try last.withBytes { bytes throws(CryptoError) in try pull(bytes, into: &output) }
            guard phase == .finished else { throw CryptoError(.truncated, "the file ended before its final chunk") }
        }
    }

    /// Parses `3.EDK.EDKN.` plus the stream header from `pending`. Returns the bytes consumed, or nil if more
    /// input is needed.
    private mutating func parsePrologue() throws(CryptoError) -> Int? {
        var dots: [Int] = []
        for (index, byte) in pending.enumerated() where byte == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count == 3 { break }
        }
        guard dots.count == 3 else {
            if pending.count > FileFormat.maximumPrologueSize {
                throw CryptoError(.invalidFormat, "the file header is malformed")
            }
            if let first = dots.first, first > 0, !pending[0..<first].elementsEqual(FileFormat.version.utf8) {
                throw CryptoError(.unsupportedVersion, "the file format version is not \(FileFormat.version)")
            }
            return nil
        }
        guard pending[0..<dots[0]].elementsEqual(FileFormat.version.utf8) else {
            if dots[0] > 0, pending[0..<dots[0]].allSatisfy({ (0x30...0x39).contains($0) }) {
                throw CryptoError(.unsupportedVersion, "the file format version is not \(FileFormat.version)")
            }
            throw CryptoError(.invalidFormat, "the file header is malformed")
        }
        let headerEnd = dots[2] + 1 + FileFormat.streamHeaderSize
        guard pending.count >= headerEnd else { return nil }
        let sealedKey: Data
        let nonce: Data
        do {
            sealedKey = try Base64URL.decode(String(decoding: pending[(dots[0] + 1)..<dots[1]], as: UTF8.self))
            nonce = try Base64URL.decode(String(decoding: pending[(dots[1] + 1)..<dots[2]], as: UTF8.self))
        } catch {
            throw CryptoError(.invalidFormat, "the file header is not base64url", underlying: error)
        }
        guard sealedKey.count == Sodium.SecretStream.keyByteCount + Sodium.SecretBox.macByteCount,
            nonce.count == Sodium.SecretBox.nonceByteCount
        else {
            throw CryptoError(.invalidFormat, "the file header has the wrong key or nonce length")
        }
        var opened = false
        let dataKey = SecureBytes(count: Sodium.SecretStream.keyByteCount) { output in
            for accessKey in accessKeys where !opened {
                opened = sealedKey.withUnsafeBytes { box in
                    nonce.withUnsafeBytes { nonceBytes in
                        accessKey.secret.withUnsafeBytes { key in
                            Sodium.SecretBox.open(box, nonce: nonceBytes, key: key, into: output)
                        }
                    }
                }
            }
        }
        guard opened else {
            throw CryptoError(.authenticationFailed, "the file key did not open: wrong access key or altered")
        }
        let streamHeader = Array(pending[(dots[2] + 1)..<headerEnd])
        let status = dataKey.withUnsafeBytes { key in
            crypto_secretstream_xchacha20poly1305_init_pull(
                &stream.state,
                streamHeader,
                key.sodiumBytes
            )
        }
        guard status == 0 else { throw CryptoError(.invalidFormat, "the stream header is malformed") }
        phase = .stream
        return headerEnd
    }

    private mutating func consumeStream(
        _ input: Slice<UnsafeRawBufferPointer>,
        into output: inout [UInt8]
    )
        throws(CryptoError)
    {
        var input = input
        while !input.isEmpty {
            guard phase == .stream else { throw CryptoError(.invalidFormat, "data follows the final chunk") }
            if pending.isEmpty && input.count >= FileFormat.chunkSize {
                try pull(UnsafeRawBufferPointer(rebasing: input.prefix(FileFormat.chunkSize)), into: &output)
                input = input.dropFirst(FileFormat.chunkSize)
                continue
            }
            let take = min(FileFormat.chunkSize - pending.count, input.count)
            pending.append(contentsOf: input.prefix(take))
            input = input.dropFirst(take)
            if pending.count == FileFormat.chunkSize {
                let full = pending
                pending.removeAll(keepingCapacity: true)
                try full.withBytes { bytes throws(CryptoError) in try pull(bytes, into: &output) }
            }
        }
    }

    private mutating func pull(_ chunk: UnsafeRawBufferPointer, into output: inout [UInt8]) throws(CryptoError) {
        guard chunk.count >= FileFormat.chunkOverhead else {
            throw CryptoError(.truncated, "the last chunk is cut short")
        }
        // Opened in place at the end of `output`, into capacity the cipher initialises itself (no zero-fill first);
        // libsodium checks the tag before it writes any plaintext, and only a chunk that authenticated counts as
        // added, so `output` only ever holds authenticated plaintext.
        let start = output.count
        let openedCount = chunk.count - FileFormat.chunkOverhead
        var status: Int32 = -1
        var tag: UInt8 = 0
        output.append(addingCapacity: openedCount) { span in
            span.withUnsafeMutableBufferPointer { free, initialized in
                var length: UInt64 = 0
                status = crypto_secretstream_xchacha20poly1305_pull(
                    &stream.state,
                    UnsafeMutableRawBufferPointer(UnsafeMutableBufferPointer(rebasing: free[..<openedCount]))
                        .sodiumMutableBytes,
                    &length,
                    &tag,
                    chunk.sodiumBytes,
                    UInt64(chunk.count),
                    nil,
                    0
                )
                if status == 0 { initialized = openedCount }
            }
        }
        guard status == 0 else {
            throw CryptoError(.authenticationFailed, "a file chunk did not authenticate: altered, reordered or foreign")
        }
        switch tag {
        case Sodium.SecretStream.tagMessage:
            break
        case Sodium.SecretStream.tagFinal:
            phase = .finished
        default:
            output.withUnsafeMutableBytes { Wipe.memory(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
            output.removeLast(openedCount)
            throw CryptoError(.invalidFormat, "a file chunk carries an unexpected tag")
        }
    }
}
