// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Encrypts and decrypts whole files in E3DB's format "3", streaming in constant memory (about 6 MiB).
///
/// Three stages work at once: one thread reads the next megabyte while the cipher seals or opens the current one
/// and another writes the previous one, so on two cores the cipher's thread does little else.
///
/// Output is written to a temporary file next to the destination and renamed into place only when everything
/// succeeded. On any failure, including cancellation, the temporary file is removed and the destination is left
/// untouched; a decryption that fails never leaves plaintext behind. The work runs on a Dispatch thread, not on
/// the cooperative pool.
public enum FileCipher {
    /// How many bytes each read takes from the source.
    static let readSize = 1 << 20

    /// A progress observer, called with the number of source bytes processed so far.
    public typealias Progress = @Sendable (_ processedBytes: Int64) -> Void

    /// Encrypts the file at `source` into a new file at `destination` under `accessKey`.
    ///
    /// With `synchronizes` (the default) the ciphertext is on stable storage before it is renamed into place; pass
    /// false for a throw-away file that is uploaded and removed, where an fsync would only cost time. Pass
    /// `computesChecksum: false` for a file that is stored, not uploaded: the MD5 costs about as much as the
    /// encryption.
    ///
    /// - Returns: the ciphertext size and (unless `computesChecksum` is false) MD5 checksum for the E3DB upload.
    /// - Throws: ``CryptoError/Code/io`` when a file cannot be read or written (the destination must not exist),
    ///   ``CryptoError/Code/cancelled`` when the task is cancelled.
    public static func encrypt(
        contentsOf source: URL,
        to destination: URL,
        with accessKey: AccessKey,
        synchronizes: Bool = true,
        computesChecksum: Bool = true,
        progress: Progress? = nil
    ) async throws(CryptoError) -> FileEncryptor.Summary {
        let sourcePath = source.path
        let destinationPath = destination.path
        return try await BlockingExecutor.shared.run { isCancelled throws(CryptoError) in
            try readAhead(from: sourcePath, wipes: true) { reader throws(CryptoError) in
                try writeAtomically(to: destinationPath, synchronizes: synchronizes, wipes: false) {
                    writer throws(CryptoError) in
                    var encryptor = FileEncryptor(accessKey: accessKey, computesChecksum: computesChecksum)
                    var ciphertext: [UInt8] = []
                    ciphertext.reserveCapacity(readSize + 2 * FileFormat.chunkSize + 128)
                    var processed: Int64 = 0
                    while true {
                        if isCancelled() { throw .cancelled() }
                        let count = try reader.next { plaintext in
                            encryptor.update(plaintext, into: &ciphertext)
                            return plaintext.count
                        }
                        guard let count else { break }
                        try writer.write(&ciphertext)
                        processed += Int64(count)
                        progress?(processed)
                    }
                    let summary = encryptor.finalize(into: &ciphertext)
                    try writer.write(&ciphertext)
                    return summary
                }
            }
        }
    }

    /// Decrypts the file at `source` into a new file at `destination`.
    ///
    /// - Returns: the plaintext size in bytes.
    /// - Throws: ``CryptoError/Code/authenticationFailed`` (wrong key, altered or reordered chunk),
    ///   ``CryptoError/Code/truncated``, ``CryptoError/Code/invalidFormat``,
    ///   ``CryptoError/Code/unsupportedVersion``, ``CryptoError/Code/io`` or ``CryptoError/Code/cancelled``. In
    ///   every case no file is left at `destination`.
    public static func decrypt(
        contentsOf source: URL,
        to destination: URL,
        with accessKey: AccessKey,
        progress: Progress? = nil
    ) async throws(CryptoError) -> Int64 {
        let sourcePath = source.path
        let destinationPath = destination.path
        return try await BlockingExecutor.shared.run { isCancelled throws(CryptoError) in
            try readAhead(from: sourcePath, wipes: false) { reader throws(CryptoError) in
                try writeAtomically(to: destinationPath, wipes: true) { writer throws(CryptoError) in
                    try decryptPieces(from: reader, with: [accessKey], isCancelled: isCancelled, progress: progress) {
                        plaintext throws(CryptoError) in
                        try writer.write(&plaintext)
                    }
                }
            }
        }
    }

    /// Decrypts the file at `source` (under `sourceKey`) and encrypts it again under `destinationKey` into a new
    /// file at `destination`, in one pass: the plaintext exists only in memory, a chunk at a time, and is wiped.
    /// Nothing is left at `destination` unless the whole source authenticated.
    ///
    /// - Returns: the plaintext size in bytes.
    /// - Throws: what ``decrypt(contentsOf:to:with:progress:)`` throws.
    public static func reencrypt(
        contentsOf source: URL,
        decryptingWith sourceKey: AccessKey,
        to destination: URL,
        encryptingWith destinationKey: AccessKey,
        progress: Progress? = nil
    ) async throws(CryptoError) -> Int64 {
        try await reencrypt(
            contentsOf: source,
            decryptingWithAnyOf: [sourceKey],
            to: destination,
            encryptingWith: destinationKey,
            progress: progress
        )
    }

    /// ``reencrypt(contentsOf:decryptingWith:to:encryptingWith:progress:)`` for a source sealed under one of
    /// `sourceKeys` (a type's key generations, newest first: ``FileDecryptor/init(accessKeys:)``).
    public static func reencrypt(
        contentsOf source: URL,
        decryptingWithAnyOf sourceKeys: [AccessKey],
        to destination: URL,
        encryptingWith destinationKey: AccessKey,
        progress: Progress? = nil
    ) async throws(CryptoError) -> Int64 {
        let sourcePath = source.path
        let destinationPath = destination.path
        return try await BlockingExecutor.shared.run { isCancelled throws(CryptoError) in
            try readAhead(from: sourcePath, wipes: false) { reader throws(CryptoError) in
                try writeAtomically(to: destinationPath, wipes: false) { writer throws(CryptoError) in
                    var encryptor = FileEncryptor(accessKey: destinationKey, computesChecksum: false)
                    var ciphertext: [UInt8] = []
                    let size = try decryptPieces(
                        from: reader,
                        with: sourceKeys,
                        isCancelled: isCancelled,
                        progress: progress
                    ) { plaintext throws(CryptoError) in
                        plaintext.withUnsafeBytes { encryptor.update($0, into: &ciphertext) }
                        try writer.write(&ciphertext)
                    }
                    _ = encryptor.finalize(into: &ciphertext)
                    try writer.write(&ciphertext)
                    return size
                }
            }
        }
    }

    /// Reads and decrypts `input` a piece at a time and hands each piece of plaintext to `consume`, which may take
    /// the buffer's contents (leaving it an empty buffer with the same capacity, as ``WriteBehind`` does); whatever
    /// is left is wiped afterwards. The one decryption loop behind ``decrypt(contentsOf:to:with:progress:)``
    /// and ``reencrypt(contentsOf:decryptingWith:to:encryptingWith:progress:)``.
    ///
    /// - Returns: the plaintext size in bytes.
    private static func decryptPieces(
        from reader: ReadAhead,
        with accessKeys: [AccessKey],
        isCancelled: () -> Bool,
        progress: Progress?,
        _ consume: (inout [UInt8]) throws(CryptoError) -> Void
    ) throws(CryptoError) -> Int64 {
        var decryptor = FileDecryptor(accessKeys: accessKeys)
        var plaintext: [UInt8] = []
        plaintext.reserveCapacity(readSize + 2 * FileFormat.blockSize)
        // The whole storage, once: each piece refills the buffer from its start, so earlier pieces are overwritten
        // or still in its spare capacity until here.
        defer { Wipe.allocation(&plaintext) }
        var processed: Int64 = 0
        var written: Int64 = 0
        while true {
            if isCancelled() { throw .cancelled() }
            let count = try reader.next { ciphertext throws(CryptoError) in
                try decryptor.update(ciphertext, into: &plaintext)
                return ciphertext.count
            }
            guard let count else { break }
            written += Int64(plaintext.count)
            try consume(&plaintext)
            plaintext.removeAll(keepingCapacity: true)
            plaintext.reserveCapacity(readSize + 2 * FileFormat.blockSize)
            processed += Int64(count)
            progress?(processed)
        }
        try decryptor.finalize(into: &plaintext)
        written += Int64(plaintext.count)
        try consume(&plaintext)
        return written
    }

    /// Opens the file at `path` and hands `body` a ``ReadAhead`` over it, which reads the next piece while `body`
    /// works on the current one (`wipes` for plaintext). The reader is finished before the file closes, on every
    /// path.
    static func readAhead<R>(
        from path: String,
        wipes: Bool,
        _ body: (ReadAhead) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        let input = try BlockingFile.openForReading(path)
        let reader = ReadAhead(descriptor: input.descriptor, pieceSize: readSize, wipes: wipes)
        defer {
            reader.finish()
            _ = input.descriptor  // the descriptor stays open until the reader has stopped
        }
        return try body(reader)
    }

    /// A fresh hidden file name in the folder of `path`, for output that is renamed into place when complete.
    static func temporaryPath(beside path: String) -> String {
        let name = ".strongroom-\(SecureRandom.uuid().uuidString.lowercased()).partial"
        guard let slash = path.lastIndex(of: "/") else { return name }
        return String(path[...slash]) + name
    }

    /// Writes through `body` into a new file beside `path` (a ``WriteBehind`` writes what `body` hands it while
    /// `body` prepares the next piece; `wipes` for plaintext) that gets the name `path` only when complete. On
    /// failure `path` is untouched and nothing is left.
    ///
    /// The file is a ``StagedOutput``: unnamed while written, so a killed process leaves no partial file behind.
    static func writeAtomically<R>(
        to path: String,
        synchronizes: Bool = true,
        wipes: Bool,
        _ body: (WriteBehind) throws(CryptoError) -> R
    ) throws(CryptoError) -> R {
        let output = try StagedOutput(creating: path)
        let result: R
        do {
            let writer = WriteBehind(descriptor: output.descriptor, wipes: wipes, startsWriteback: synchronizes)
            defer { writer.waitForPendingWrites() }  // before the descriptor closes, on every path
            result = try body(writer)
            try writer.finish()
        }
        if synchronizes { try output.sync() }
        try output.commit()
        return result
    }

    /// Moves the complete file at `temporary` to `path`, which must still not exist. A hard link refuses an
    /// existing name atomically (a file created there meanwhile is never replaced); on a file system without hard
    /// links it falls back to a check and a rename.
    static func moveIntoPlace(_ temporary: String, to path: String) throws(CryptoError) {
        if link(temporary, path) == 0 {
            unlink(temporary)
            return
        }
        guard errno != EEXIST else { throw CryptoError(.exists, "the destination already exists") }
        guard access(path, F_OK) != 0 else { throw CryptoError(.exists, "the destination already exists") }
        guard rename(temporary, path) == 0 else { throw CryptoError(.io, "rename failed: \(errnoDescription())") }
    }
}
