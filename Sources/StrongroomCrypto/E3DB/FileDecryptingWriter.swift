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

/// Decrypts an E3DB format-"3" file as its ciphertext arrives (a download, say) into a new file, in one pass and
/// constant memory, and makes it visible only when ``commit()`` finds the whole file authentic.
///
/// The plaintext goes to an unnamed file (`O_TMPFILE`, mode 0600) in the destination's folder while a second thread
/// writes it; only authenticated chunks are ever written. ``commit()`` finishes the stream, fsyncs and gives the
/// file its name; a writer released without a successful commit (an error, a checksum that did not match,
/// cancellation) leaves nothing, and neither does a killed process: the kernel frees an unnamed file. Where the
/// file system has no unnamed files, a hidden `.strongroom-<uuid>.partial` registered with `StagedFiles` stands in.
public final class FileDecryptingWriter {
    private let output: StagedOutput
    private let writer: WriteBehind
    private var decryptor: FileDecryptor?
    private var plaintext: [UInt8] = []
    private var written: Int64 = 0

    /// Prepares to decrypt into a new file at `destination`, which must not exist.
    ///
    /// - Throws: ``CryptoError/Code/io`` when the destination exists or its folder is not writable.
    public convenience init(creatingFileAt destination: URL, accessKey: AccessKey) throws(CryptoError) {
        try self.init(creatingFileAt: destination, accessKeys: [accessKey])
    }

    /// Prepares to decrypt a file sealed under one of `accessKeys` (``FileDecryptor/init(accessKeys:)``) into a new
    /// file at `destination`, which must not exist.
    ///
    /// - Throws: ``CryptoError/Code/io`` when the destination exists or its folder is not writable.
    public init(creatingFileAt destination: URL, accessKeys: [AccessKey]) throws(CryptoError) {
        output = try StagedOutput(creating: destination.path)
        writer = WriteBehind(descriptor: output.descriptor, wipes: true, startsWriteback: true)
        decryptor = FileDecryptor(accessKeys: accessKeys)
    }

    /// Decrypts the next piece of ciphertext and queues its authenticated plaintext for writing.
    ///
    /// An error ends the file: the stream's key is wiped, and later writes and ``commit()`` throw.
    ///
    /// - Throws: what ``FileDecryptor`` throws for a damaged stream (``CryptoError/Code/authenticationFailed``,
    ///   ``CryptoError/Code/invalidFormat``, ``CryptoError/Code/unsupportedVersion``), or ``CryptoError/Code/io``.
    public func write(_ ciphertext: UnsafeRawBufferPointer) throws(CryptoError) {
        guard decryptor != nil else { throw CryptoError(.invalidParameters, "the file is finished") }
        // Every write that returned handed its plaintext to the writer, so the buffer is empty here. It is made
        // large enough for this piece and a carried chunk before decrypting: growing it while appending would free
        // its old storage, which may hold an earlier piece's plaintext, unwiped.
        let room = ciphertext.count + 2 * FileFormat.blockSize
        if plaintext.capacity < room {
            Wipe.allocation(&plaintext)
            plaintext.reserveCapacity(room)
        }
        do throws(CryptoError) {
            try decryptor?.update(ciphertext, into: &plaintext)
            written += Int64(plaintext.count)
            try writer.write(&plaintext)
        } catch {
            decryptor = nil
            throw error
        }
    }

    /// Ends the stream: checks the final chunk, writes and fsyncs the plaintext and renames it to the destination.
    ///
    /// - Returns: the plaintext size in bytes.
    /// - Throws: ``CryptoError/Code/truncated`` or ``CryptoError/Code/authenticationFailed`` for an incomplete or
    ///   altered file, ``CryptoError/Code/io`` (including a destination that appeared meanwhile).
    public func commit() throws(CryptoError) -> Int64 {
        guard let decryptor = decryptor.take() else {
            throw CryptoError(.invalidParameters, "the file is finished")
        }
        try decryptor.finalize(into: &plaintext)
        written += Int64(plaintext.count)
        try writer.write(&plaintext)
        try writer.finish()
        try output.sync()
        try output.commit()
        return written
    }

    deinit {
        // The writes finish before `output` is released (after this body), which closes or frees the file.
        writer.waitForPendingWrites()
        Wipe.allocation(&plaintext)
    }
}
