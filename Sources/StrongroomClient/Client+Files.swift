// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
public import Foundation
import NIOCore
import NIOHTTP1
import StrongroomCore
package import StrongroomCrypto
import StrongroomWire

extension Client {
    /// Encrypts a file (E3DB format "3", streamed in constant memory) and uploads it as a record of `type`.
    ///
    /// The ciphertext goes to a temporary file first, because E3DB needs its size and checksum before the upload;
    /// that file is removed on every path, including failure and cancellation.
    ///
    /// - Throws: ``ClientError/Code/badRequest`` when the file cannot be read, the usual server and transport
    ///   codes, ``ClientError/Code/cancelled``.
    public func writeFile(
        type: String,
        fileURL: URL,
        plain: [String: String] = [:],
        progress: (@Sendable (FileTransferProgress) -> Void)? = nil
    ) async throws(ClientError) -> FileInfo {
        let key = try await writerKey(type: type)
        return try await withTemporaryFile { encrypted throws(ClientError) in
            let summary: FileEncryptor.Summary
            do throws(StrongroomCrypto.CryptoError) {
                summary = try await FileCipher.encrypt(
                    contentsOf: fileURL,
                    to: encrypted,
                    with: key,
                    synchronizes: false  // uploaded, then removed
                ) {
                    progress?(.encrypting($0))
                }
            } catch {
                throw ClientError(
                    error.code == .cancelled ? .cancelled : .badRequest,
                    "the file could not be encrypted: \(error.message)",
                    underlying: error
                )
            }
            return try await upload(
                encrypted,
                summary: summary,
                type: type,
                plain: plain,
                fileName: fileURL.lastPathComponent,
                progress: progress
            )
        }
    }

    /// The E3DB upload of an encrypted file: the pending record, the body, the commit.
    func upload(
        _ encrypted: URL,
        summary: FileEncryptor.Summary,
        type: String,
        plain: [String: String],
        fileName: String,
        progress: (@Sendable (FileTransferProgress) -> Void)?
    ) async throws(ClientError) -> FileInfo {
        guard let checksum = summary.checksum else {
            throw ClientError(.badRequest, "the file's checksum was not computed")
        }
        let request = FileWriteRequest(
            meta: .init(
                writerID: clientID,
                userID: clientID,
                type: type,
                plain: plain,
                fileMeta: FileMeta(
                    checksum: checksum,
                    compression: "raw",
                    size: summary.size,
                    fileName: fileName
                )
            )
        )
        let pending = try await authenticated(
            .POST,
            E3DBPath.files.render(),
            body: request,
            success: [202],
            as: PendingFileResponse.self
        )
        try await upload(
            encrypted,
            to: pending.fileURL,
            size: summary.size,
            checksum: checksum,
            progress: progress
        )
        let committed = try await authenticated(
            .PATCH,
            E3DBPath.file.render(pending.id),
            success: [200, 201],
            as: RecordResponse.self
        )
        return try FileInfo(committed.meta)
    }

    /// Downloads a file record and decrypts it to `destination` (which must not exist). Nothing is written there
    /// unless the whole file authenticated.
    ///
    /// - Throws: ``ClientError/Code/tampered`` when the ciphertext does not match its checksum or does not decrypt,
    ///   ``ClientError/Code/forbidden``, ``ClientError/Code/notFound``, transport codes, ``ClientError/Code/cancelled``.
    @discardableResult
    public func readFile(
        recordID: UUID,
        destination: URL,
        progress: (@Sendable (FileTransferProgress) -> Void)? = nil
    ) async throws(ClientError) -> FileInfo {
        // One pass: the download is checksummed and decrypted as it arrives into a hidden file beside
        // `destination`, renamed into place only when the whole file authenticated and matched its checksum.
        let (response, info, url) = try await fileRecord(recordID)
        let keys = try await fileKeys(of: response.meta)
        // Each attempt (a retried download) starts a new output file; a failed one is removed with its writer.
        let output = try await download(url, expecting: info, progress: progress) { () throws(ClientError) in
            do throws(StrongroomCrypto.CryptoError) {
                return try FileDecryptingWriter(creatingFileAt: destination, accessKeys: keys)
            } catch {
                throw ClientError(.badRequest, "the file cannot be written: \(error.message)", underlying: error)
            }
        } write: { output, bytes, received throws(ClientError) in
            do throws(StrongroomCrypto.CryptoError) {
                try output.write(bytes)
            } catch {
                throw Self.decryptionFailure(error)
            }
            progress?(.decrypting(received))
        }
        // The last chunk's check, the fsync and the naming: blocking work, on the blocking executor.
        let finished = DownloadSink(output)
        try await BlockingExecutor.shared.run { _ throws(ClientError) in
            do throws(StrongroomCrypto.CryptoError) {
                _ = try finished.value.commit()
            } catch {
                throw Self.decryptionFailure(error)
            }
        }
        return info
    }

    /// A local decryption failure as a client error (see ``fileStepFailure(_:cancelled:io:underlying:)``).
    private static func decryptionFailure(_ error: StrongroomCrypto.CryptoError) -> ClientError {
        fileStepFailure(
            "the file did not decrypt: \(error.message)",
            cancelled: error.code == .cancelled,
            io: error.code == .io,
            underlying: error
        )
    }

    /// A local step after the download failed: cancelled, an unusable destination (bad request), or data that did
    /// not authenticate (tampered).
    package static func fileStepFailure(
        _ message: String,
        cancelled: Bool,
        io: Bool,
        underlying: some Error & Sendable
    ) -> ClientError {
        ClientError(cancelled ? .cancelled : io ? .badRequest : .tampered, message, underlying: underlying)
    }

    /// The file record, its information and its download URL.
    private func fileRecord(_ recordID: UUID) async throws(ClientError) -> (RecordResponse, FileInfo, String) {
        let response = try await authenticated(
            .GET,
            E3DBPath.file.render(RecordID(recordID).description),
            success: [200],
            as: RecordResponse.self
        )
        let info = try FileInfo(response.meta)
        guard let url = response.meta.fileMeta?.fileURL else {
            throw ClientError(.invalidResponse, "the server returned no download URL")
        }
        return (response, info, url)
    }

    /// Downloads a file record into a staged, checked copy and hands it with the keys it may be sealed under (newest
    /// first) to `finish`; a file the server says is larger than `maximumSize` ciphertext bytes is
    /// ``ClientError/Code/tampered`` before any of it is downloaded.
    package func readFile(
        recordID: UUID,
        maximumSize: Int64? = nil,
        progress: (@Sendable (FileTransferProgress) -> Void)?,
        finish: (URL, [AccessKey]) async throws(ClientError) -> Void
    ) async throws(ClientError) -> FileInfo {
        let (response, info, url) = try await fileRecord(recordID)
        if let maximumSize, info.size > maximumSize {
            throw ClientError(.tampered, "file \(recordID) is larger than the \(maximumSize) bytes it can be")
        }
        let keys = try await fileKeys(of: response.meta)
        return try await withTemporaryFile { encrypted throws(ClientError) in
            try await download(url, to: encrypted, expecting: info, progress: progress)
            try await finish(encrypted, keys)
            return info
        }
    }

    /// The keys a file record of `meta`'s writer, user and type may be sealed under, newest first: the current one
    /// and, for a type that has rotated, the older generations (a file's sealed key is inside its body, so a
    /// rotation does not re-wrap it).
    private func fileKeys(of meta: RecordMeta) async throws(ClientError) -> [AccessKey] {
        let (key, generation) = try await readerKeyEntry(
            writerID: meta.writerID,
            userID: meta.userID,
            type: meta.type
        )
        guard generation != 1 else { return [key] }
        return [key]
            + (try await olderKeys(below: key, writerID: meta.writerID, userID: meta.userID, type: meta.type)).keys
    }

    /// Downloads a file record and decrypts it to `destination`, replacing a file there when `overwrite` is true
    /// (e3db-swift's behaviour; ``readFile(recordID:destination:progress:)`` refuses an existing destination).
    ///
    /// The replacement is atomic and happens only after the whole file authenticated: the plaintext goes to a new
    /// file beside `destination`, which is renamed over it at the end, so a failure or cancellation leaves the old
    /// file as it was and no partial one.
    ///
    /// - Throws: what ``readFile(recordID:destination:progress:)`` throws; ``ClientError/Code/badRequest`` when the
    ///   replacement cannot be renamed into place.
    @discardableResult
    public func readFile(
        recordID: UUID,
        destination: URL,
        overwrite: Bool,
        progress: (@Sendable (FileTransferProgress) -> Void)? = nil
    ) async throws(ClientError) -> FileInfo {
        guard overwrite else {
            return try await readFile(recordID: recordID, destination: destination, progress: progress)
        }
        let folder = destination.deletingLastPathComponent()
        let staged = folder.appending(path: ".\(destination.lastPathComponent).\(UUID().uuidString).strongroom-part")
        // Named only between the finished download and the rename; an interrupted program removes it too.
        let registration = StagedFiles.register(staged.path)
        defer {
            try? FileManager.default.removeItem(at: staged)  // gone after the rename; left only on failure
            StagedFiles.unregister(registration)
        }
        let info = try await readFile(recordID: recordID, destination: staged, progress: progress)
        guard rename(staged.path, destination.path) == 0 else {
            throw ClientError(.badRequest, "the file could not replace \(destination.path) (errno \(errno))")
        }
        return info
    }

    private func upload(
        _ file: URL,
        to url: String,
        size: Int64,
        checksum: String,
        progress: (@Sendable (FileTransferProgress) -> Void)?
    ) async throws(ClientError) {
        var request = OutgoingRequest(method: .PUT, url: url)
        request.addHeader("Content-Type", "application/octet-stream")
        request.addHeader("Content-MD5", checksum)
        request.body = .file(path: file.path, length: size) { progress?(.uploading($0)) }
        let status = try await transport.exchange(request, timeout: transport.options.transferTimeout) { status, body in
            _ = try await body.collect(upTo: 1 << 20)
            return status
        }
        guard status == 200 else {
            throw ClientError.status(status, message: "the file upload was refused (HTTP \(status))")
        }
    }

    /// Downloads `url` into a new staged file (0600), checked against the record's size and checksum.
    private func download(
        _ url: String,
        to file: URL,
        expecting info: FileInfo,
        progress: (@Sendable (FileTransferProgress) -> Void)?
    ) async throws(ClientError) {
        guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw ClientError(.badRequest, "a temporary file could not be created")
        }
        let handle: FileHandle
        do {
            handle = try FileHandle(forWritingTo: file)
        } catch {
            throw ClientError(.badRequest, "a temporary file could not be opened", underlying: error)
        }
        defer { try? handle.close() }  // closing a file we only wrote to cannot lose anything we still need
        _ = try await download(url, expecting: info, progress: progress) { () throws(ClientError) in
            do {
                try handle.truncate(atOffset: 0)  // a retried download starts the file again
            } catch {
                throw ClientError(.badRequest, "the temporary file could not be reset", underlying: error)
            }
            return handle
        } write: { handle, bytes, _ throws(ClientError) in
            do {
                try handle.write(contentsOf: Data(bytes))
            } catch {
                throw ClientError(.badRequest, "the temporary file could not be written", underlying: error)
            }
        }
    }

    /// Downloads `url` and hands each piece of the body, with the bytes received so far, to the sink `open` makes
    /// for each attempt (a retried download starts again), checking the body against the record: a server that
    /// sends more than its declared size is cut off before it can fill the disk, and the whole must match the size
    /// and MD5. Returns the sink of the attempt that matched.
    ///
    /// The sink's writes (file I/O, decryption, a full write-behind queue) never run on the cooperative pool: the
    /// pieces are handed over in batches of about ``downloadBatchBytes`` to a serial job on the blocking executor,
    /// one batch at a time, while the next is received.
    private func download<Sink>(
        _ url: String,
        expecting info: FileInfo,
        progress: (@Sendable (FileTransferProgress) -> Void)?,
        open: () throws(ClientError) -> Sink,
        write: @escaping @Sendable (Sink, UnsafeRawBufferPointer, Int64) throws(ClientError) -> Void
    ) async throws(ClientError) -> Sink {
        let request = OutgoingRequest(method: .GET, url: url)
        return try await transport.exchange(request, timeout: transport.options.transferTimeout) { status, body in
            guard status == 200 else {
                throw ClientError.status(status, message: "the file download was refused (HTTP \(status))")
            }
            let sink = DownloadSink(try open())
            let writer = BlockingExecutor(label: "strongroom.download.sink", serial: true)
            let md5 = BackgroundMD5()
            var received: Int64 = 0
            var batch: [ByteBuffer] = []
            var batchBytes = 0
            var written: Int64 = 0
            func flush() async throws(ClientError) {
                guard !batch.isEmpty else { return }
                let (pieces, start) = (batch, written)
                written += Int64(batchBytes)
                (batch, batchBytes) = ([], 0)
                try await writer.run { _ throws(ClientError) in
                    var total = start
                    for piece in pieces {
                        total += Int64(piece.readableBytes)
                        let reached = total
                        try piece.withUnsafeReadableBytes { bytes throws(ClientError) in
                            try write(sink.value, bytes, reached)
                        }
                    }
                }
            }
            for try await buffer in body {
                received += Int64(buffer.readableBytes)
                guard received <= info.size else {
                    throw ClientError(.tampered, "the download is larger than the file's declared size")
                }
                progress?(.downloading(received))
                await md5.update(buffer)
                batch.append(buffer)
                batchBytes += buffer.readableBytes
                if batchBytes >= Self.downloadBatchBytes { try await flush() }
            }
            try await flush()
            let checksum = Data(await md5.finalize()).base64EncodedString()
            guard received == info.size, ConstantTime.equals(checksum, info.checksum) else {
                throw ClientError(.tampered, "the downloaded file does not match its size and checksum")
            }
            return sink.value
        }
    }

    /// How many received bytes are handed to a download's sink at once (one blocking-executor job per batch).
    static let downloadBatchBytes = 1 << 20

    /// Runs `body` with a fresh temporary file path and removes the file afterwards, whatever happens.
    private func withTemporaryFile<R>(_ body: (URL) async throws(ClientError) -> R) async throws(ClientError) -> R {
        let file = stagingFile()
        let registration = StagedFiles.register(file.path)  // an interrupted program removes it too
        defer {
            try? FileManager.default.removeItem(at: file)  // it may never have been created
            StagedFiles.unregister(registration)
        }
        return try await body(file)
    }
}

extension FileInfo {
    init(_ wire: RecordMeta) throws(ClientError) {
        guard let fileMeta = wire.fileMeta else { throw ClientError(.invalidResponse, "the record is not a file") }
        self.init(meta: try Meta(wire), size: fileMeta.size, checksum: fileMeta.checksum, fileName: fileMeta.fileName)
    }
}

/// A download's sink (a file handle, a decrypting writer) handed to the blocking executor. `@unchecked`: the
/// download uses it from one job at a time, in order (a serial executor, then the commit after the last batch).
private final class DownloadSink<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

extension Client {
    /// A new name for a staged ciphertext file, in the staging folder the options name (or the temporary one).
    func stagingFile() -> URL {
        let folder = transport.options.stagingDirectory ?? FileManager.default.temporaryDirectory
        return folder.appending(path: ".strongroom-\(UUID().uuidString).e3db")
    }
}
