// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension AgeFile {
    /// Encrypts the file at `source` to `recipients` into a new age file at `destination` (0600, which must not
    /// exist), streamed in constant memory, off the cooperative pool; nothing is left at `destination` unless it all
    /// succeeded.
    ///
    /// - Throws: what ``AgeEncryptor/init(recipients:)`` throws; ``CryptoError/Code/io``,
    ///   ``CryptoError/Code/exists``, ``CryptoError/Code/cancelled``.
    public static func encrypt(
        contentsOf source: URL,
        to destination: URL,
        recipients: [AgeRecipient],
        progress: FileCipher.Progress? = nil
    ) async throws(CryptoError) {
        let prepared = try AgeEncryptor(recipients: recipients)
        let (sourcePath, destinationPath) = (source.path, destination.path)
        try await BlockingExecutor.shared.run { isCancelled throws(CryptoError) in
            var encryptor = prepared
            try FileCipher.readAhead(from: sourcePath, wipes: true) { reader throws(CryptoError) in
                try FileCipher.writeAtomically(to: destinationPath, wipes: false) { writer throws(CryptoError) in
                    var output = [UInt8](encryptor.prelude)
                    try writer.write(&output)
                    var processed: Int64 = 0
                    while true {
                        if isCancelled() { throw .cancelled() }
                        let sealed = try reader.next { plaintext throws(CryptoError) in
                            processed += Int64(plaintext.count)
                            return try encryptor.update(Data(plaintext))
                        }
                        guard let sealed else { break }
                        output = [UInt8](sealed)
                        try writer.write(&output)
                        progress?(processed)
                    }
                    output = [UInt8](try encryptor.finish())
                    try writer.write(&output)
                }
            }
        }
    }

    /// Decrypts the age file at `source` with whichever of `identities` it was encrypted to into a new file at
    /// `destination` (0600, which must not exist). The output is unnamed until the whole file authenticated, so a
    /// failure, a cancellation or a killed process leaves nothing at `destination`.
    ///
    /// - Returns: the plaintext size.
    /// - Throws: what ``AgeFile/decrypt(_:with:)`` throws; ``CryptoError/Code/io``, ``CryptoError/Code/exists``,
    ///   ``CryptoError/Code/cancelled``.
    @discardableResult
    public static func decrypt(
        contentsOf source: URL,
        to destination: URL,
        identities: [AgeIdentity],
        progress: FileCipher.Progress? = nil
    ) async throws(CryptoError) -> Int64 {
        let (sourcePath, destinationPath) = (source.path, destination.path)
        return try await BlockingExecutor.shared.run { isCancelled throws(CryptoError) in
            var decryptor = AgeDecryptor(identities: identities)
            return try FileCipher.readAhead(from: sourcePath, wipes: false) { reader throws(CryptoError) in
                try FileCipher.writeAtomically(to: destinationPath, wipes: true) { writer throws(CryptoError) in
                    var written: Int64 = 0
                    var processed: Int64 = 0
                    while true {
                        if isCancelled() { throw .cancelled() }
                        let opened = try reader.next { bytes throws(CryptoError) in
                            processed += Int64(bytes.count)
                            return try decryptor.update(Data(bytes))
                        }
                        guard let opened else { break }
                        var plaintext = [UInt8](opened)
                        written += Int64(plaintext.count)
                        try writer.write(&plaintext)
                        progress?(processed)
                    }
                    var plaintext = [UInt8](try decryptor.finish())
                    written += Int64(plaintext.count)
                    try writer.write(&plaintext)
                    return written
                }
            }
        }
    }

    /// Whether `bytes` (a file's first bytes) start an age file.
    public static func isAgeFile(_ bytes: some DataProtocol) -> Bool {
        bytes.starts(with: Data((AgeHeader.versionLine + "\n").utf8))
    }
}
