// Strongroom — SPDX-License-Identifier: Apache-2.0
package import Foundation
import StrongroomCore
import StrongroomCrypto

/// File records from and to streams of plaintext, for the replicator's attachments (package API): the plaintext
/// never touches the disk here — only E3DB ciphertext is staged, in a temporary file removed on every path.
extension Client {
    /// Encrypts `contents` as it arrives (E3DB file format "3") and uploads it as a file record of `type`.
    ///
    /// - Throws: ``ClientError`` from the upload, ``ClientError/Code/cancelled`` when the task is cancelled before
    ///   `contents` ends (nothing is uploaded); the sequence's own error as it is.
    package func writeFile(
        type: String,
        plain: [String: String],
        fileName: String,
        contents: AsyncThrowingStream<[UInt8], any Error>
    ) async throws -> FileInfo {
        let key = try await writerKey(type: type)
        let staged = stagingFile()
        let registration = StagedFiles.register(staged.path)
        defer {
            try? FileManager.default.removeItem(at: staged)  // ciphertext; removed on every path
            StagedFiles.unregister(registration)
        }
        let handle = try await BlockingExecutor.shared.run { _ in
            guard
                FileManager.default.createFile(
                    atPath: staged.path,
                    contents: nil,
                    attributes: [.posixPermissions: 0o600]
                )
            else {
                throw ClientError(
                    .badRequest,
                    "the upload cannot be staged in \(staged.deletingLastPathComponent().path)"
                )
            }
            return try FileHandle(forWritingTo: staged)
        }
        defer { try? handle.close() }  // read again by the upload through its own handle
        var encryptor = FileEncryptor(accessKey: key)
        var output: [UInt8] = []
        for try await piece in contents {
            encryptor.update(piece, into: &output)
            if output.count >= 1 << 20 {
                let batch = output
                output.removeAll(keepingCapacity: true)
                try await BlockingExecutor.shared.run { _ in try handle.write(contentsOf: batch) }
            }
        }
        // A stream ends, rather than throws, when its task is cancelled: what arrived is not the whole file.
        guard !Task.isCancelled else {
            throw ClientError(.cancelled, "the file was cancelled before its contents were complete")
        }
        let summary = encryptor.finalize(into: &output)
        let rest = output
        try await BlockingExecutor.shared.run { _ in try handle.write(contentsOf: rest) }
        return try await upload(staged, summary: summary, type: type, plain: plain, fileName: fileName, progress: nil)
    }

    /// Downloads file record `recordID` — refused before the download when it is larger than `plaintextSize`
    /// bytes of plaintext can be in E3DB's format — checks it against its checksum, and hands its plaintext to
    /// `consume` in order, a chunk at a time. The file is authentic only when this returns: on a throw, discard what
    /// `consume` received.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the file is too large or does not decrypt; `consume`'s error as
    ///   it is.
    package func readFile(
        recordID: UUID,
        plaintextSize: Int64,
        consume: ([UInt8]) async throws -> Void
    ) async throws -> FileInfo {
        // The prologue (sealed stream key, header, version) is far below 4 KiB; each 64 KiB block adds its MAC.
        let size = min(max(plaintextSize, 0), 1 << 50)
        let blocks = size / Int64(FileFormat.blockSize) + 1
        let maximumSize = 4_096 + size + blocks * Int64(FileFormat.chunkOverhead)
        var failure: (any Error)?
        let info = try await readFile(recordID: recordID, maximumSize: maximumSize, progress: nil) {
            encrypted,
            keys throws(ClientError) in
            do {
                let handle = try await BlockingExecutor.shared.run { _ in try FileHandle(forReadingFrom: encrypted) }
                defer { try? handle.close() }  // read-only
                var decryptor = FileDecryptor(accessKeys: keys)
                var plaintext: [UInt8] = []
                defer { Wipe.allocation(&plaintext) }  // on every path, a failed one too
                while let piece = try await BlockingExecutor.shared.run({ _ in try handle.read(upToCount: 1 << 20) }),
                    !piece.isEmpty
                {
                    plaintext.removeAll(keepingCapacity: true)
                    try decryptor.update(piece, into: &plaintext)
                    if !plaintext.isEmpty { try await consume(plaintext) }
                }
                plaintext.removeAll(keepingCapacity: true)
                try decryptor.finalize(into: &plaintext)
                if !plaintext.isEmpty { try await consume(plaintext) }
            } catch let error as CryptoError {
                throw Self.fileStepFailure(
                    "the file did not decrypt: \(error.message)",
                    cancelled: error.code == .cancelled,
                    io: error.code == .io,
                    underlying: error
                )
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
        return info
    }
}
