// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Attachment body files: `attachments/<32 random hex digits>` in the datastore's folder.
///
/// Encrypted datastores write `SRA1` ‖ a 24-byte secretstream header ‖ chunks of 64 KiB plaintext sealed with
/// XChaCha20-Poly1305 (`crypto_secretstream`), the last tagged final, under `HKDF-SHA256(data key, "attachments")`;
/// every chunk's associated data binds the datastore's ID, the document ID, the attachment name and its revpos, so
/// a file moved to another document or datastore does not open. Unencrypted datastores write the plain bytes. Both
/// are checked against the stored length and SHA-256 on every read.
enum AttachmentFile {
    static let chunkSize = 64 * 1024
    static let magic = Array("SRA1".utf8)

    /// The associated data of every chunk.
    static func associatedData(datastoreID: String, docID: String, name: String, revpos: Int) -> [UInt8] {
        Array("strongroom.attachment.v1\u{0}\(datastoreID)\u{0}\(docID)\u{0}\(name)\u{0}\(revpos)".utf8)
    }

    /// A new random file name.
    static func randomName() -> String { SecureRandom.data(count: 16).hexString }

    static func tampered(_ detail: String) -> DatastoreError {
        DatastoreError(.tampered, "the attachment does not authenticate: \(detail); nothing more is returned")
    }
}

/// Writes one attachment body: to `<name>.partial` (held under an exclusive `flock`, so compaction can tell a
/// live write from a crash's leftover), then renamed into place by ``commit()``.
///
/// `@unchecked Sendable`: each call runs on the blocking executor, one call of a kind at a time and in content order;
/// ``hash(_:)``, ``seal(_:)`` and ``write(sealed:)`` touch disjoint state, so the three may run at once
/// (``AttachmentPipeline``); ``finish()``, ``commit()`` and ``discard()`` only once none of them is running.
final class AttachmentWriter: @unchecked Sendable {
    let name = AttachmentFile.randomName()
    private let folder: URL
    private let handle: FileHandle
    private var sealer: SecretStream.Sealer?
    private let associatedData: [UInt8]
    private let limit: Int64
    private var pending: [UInt8] = []
    private var hasher = SHA256()
    private(set) var length: Int64 = 0
    private var finished = false
    /// Renamed into place: from then on the file belongs to the datastore and ``discard()`` leaves it.
    private(set) var committed = false

    var partialURL: URL { folder.appending(path: name + ".partial") }
    var finalURL: URL { folder.appending(path: name) }

    init(folder: URL, key: SecureBytes?, associatedData: [UInt8], limit: Int64) throws(DatastoreError) {
        self.folder = folder
        self.associatedData = associatedData
        self.limit = limit
        // Never grown while appending: a reallocation would free held-back plaintext unwiped.
        pending.reserveCapacity(AttachmentFile.chunkSize)
        do {
            try FileManager.default.createDirectory(
                at: folder,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
            try AtomicFile.write(Data(), to: folder.appending(path: name + ".partial").path, mode: .createNew)
            handle = try FileHandle(forWritingTo: folder.appending(path: name + ".partial"))
        } catch {
            throw DatastoreError(.storage, "the attachment file cannot be created", underlying: error)
        }
        _ = flock(handle.fileDescriptor, LOCK_EX)
        if let key {
            do {
                let sealer = try SecretStream.Sealer(key: key)
                try write(AttachmentFile.magic + sealer.header)
                self.sealer = sealer
            } catch {
                throw DatastoreError(.storage, "the attachment stream cannot start", underlying: error)
            }
        }
    }

    /// Adds content: hashes it, then seals and writes it.
    func append(_ bytes: [UInt8]) throws(DatastoreError) {
        hash(bytes)
        try write(sealed: try seal(bytes))
    }

    /// Adds content to the digest. It touches only the hasher, so it may run on another thread while ``seal(_:)``
    /// and ``write(sealed:)`` handle the same or other bytes (each of the three is called in content order).
    func hash(_ bytes: [UInt8]) {
        hasher.update(data: bytes)
    }

    /// Seals content (the digest is ``hash(_:)``'s) and returns the sealed chunks, for ``write(sealed:)``. It
    /// touches only the sealer, the held-back tail and the length, so it may run while an earlier batch is written.
    func seal(_ bytes: [UInt8]) throws(DatastoreError) -> [UInt8] {
        length += Int64(bytes.count)
        guard length <= limit else {
            throw DatastoreError(.documentTooLarge, "an attachment is at most \(limit) bytes")
        }
        // A chunk goes out only once more data follows it (the last one is tagged final by `finish`); full chunks
        // are sealed straight from `bytes`, without copying them through `pending`.
        let size = AttachmentFile.chunkSize
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + pending.count + (bytes.count / size + 2) * SecretStream.chunkOverhead)
        var offset = 0
        if !pending.isEmpty {
            offset = min(size - pending.count, bytes.count)
            pending.append(contentsOf: bytes[0..<offset])
            guard offset < bytes.count else { return output }
            emit(pending[...], isFinal: false, into: &output)
            pending.removeAll(keepingCapacity: true)
        }
        while bytes.count - offset > size {
            emit(bytes[offset..<offset + size], isFinal: false, into: &output)
            offset += size
        }
        pending.append(contentsOf: bytes[offset...])
        return output
    }

    /// Writes what ``seal(_:)`` returned. It touches only the file, so it may run while a later batch is sealed.
    func write(sealed: [UInt8]) throws(DatastoreError) {
        try write(sealed)
    }

    /// Writes the last chunk and makes the file durable; returns the digest.
    func finish() throws(DatastoreError) -> String {
        var last: [UInt8] = []
        emit(pending[...], isFinal: true, into: &last)
        Wipe.allocation(&pending)
        try write(last)
        do {
            try handle.synchronize()
        } catch {
            throw DatastoreError(.storage, "the attachment file cannot be synced", underlying: error)
        }
        finished = true
        return "sha256-" + Data(hasher.finalize()).base64EncodedString()
    }

    /// Renames the finished file into place (call while holding the datastore's write lock).
    func commit() throws(DatastoreError) {
        do {
            try FileManager.default.moveItem(at: partialURL, to: finalURL)
        } catch {
            throw DatastoreError(.storage, "the attachment file cannot be renamed", underlying: error)
        }
        committed = true
        try? handle.close()  // the data is synced; a close failure loses nothing
    }

    /// Wipes the held-back plaintext's storage on every path (finished, discarded or dropped after an error).
    deinit { Wipe.allocation(&pending) }

    /// Removes whatever was written, unless it was committed.
    func discard() {
        guard !committed else { return }
        try? handle.close()  // best effort: the files are removed below
        // Cleanup after a failure already being thrown: that error is the one to report.
        try? FileManager.default.removeItem(at: partialURL)
        try? FileManager.default.removeItem(at: finalURL)
    }

    /// Appends the chunk to `output`: sealed, or as it is for an unencrypted datastore.
    private func emit(_ plaintext: ArraySlice<UInt8>, isFinal: Bool, into output: inout [UInt8]) {
        if let sealer {
            plaintext.withUnsafeBytes {
                sealer.seal($0, associatedData: associatedData, isFinal: isFinal, appendingTo: &output)
            }
        } else {
            output += plaintext
        }
    }

    private func write(_ bytes: some DataProtocol) throws(DatastoreError) {
        guard !bytes.isEmpty else { return }
        do {
            try handle.write(contentsOf: bytes)
        } catch {
            throw DatastoreError(.storage, "the attachment file cannot be written", underlying: error)
        }
    }
}

/// Reads one attachment body chunk by chunk, authenticating each before it is returned.
///
/// `@unchecked Sendable`: used by one task at a time, each call on the blocking executor.
final class AttachmentReader: @unchecked Sendable {
    private let handle: FileHandle
    private var opener: SecretStream.Opener?
    private let associatedData: [UInt8]
    private let expected: Attachment
    private var hasher = SHA256()
    private var length: Int64 = 0
    private var done = false
    /// One sealed chunk as read, reused for every chunk.
    private var sealed = [UInt8](repeating: 0, count: AttachmentFile.chunkSize + SecretStream.chunkOverhead)

    init(url: URL, key: SecureBytes?, associatedData: [UInt8], expected: Attachment) throws(DatastoreError) {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw AttachmentFile.tampered("its file is missing")
        }
        self.handle = handle
        self.associatedData = associatedData
        self.expected = expected
        if let key {
            let prefix = try Self.read(handle, count: AttachmentFile.magic.count + SecretStream.headerByteCount)
            guard prefix.count == AttachmentFile.magic.count + SecretStream.headerByteCount,
                Array(prefix.prefix(AttachmentFile.magic.count)) == AttachmentFile.magic
            else { throw AttachmentFile.tampered("its header is damaged") }
            do {
                opener = try SecretStream.Opener(key: key, header: Array(prefix.dropFirst(AttachmentFile.magic.count)))
            } catch {
                throw AttachmentFile.tampered("its header is damaged")
            }
        }
    }

    deinit { try? handle.close() }  // read-only: closing cannot lose data

    /// The next authenticated chunk, or nil at the (verified) end.
    func next() throws(DatastoreError) -> [UInt8]? {
        guard !done else { return nil }
        var plaintext: [UInt8]
        let isLast: Bool
        if let opener {
            let count = try Self.read(handle, into: &sealed)
            guard count > 0 else { throw AttachmentFile.tampered("it was cut short") }
            // Straight from the read buffer into the returned array: no intermediate copies per chunk.
            var opened: (count: Int, isFinal: Bool)?
            plaintext = [UInt8](unsafeUninitializedCapacity: max(count - SecretStream.chunkOverhead, 0)) {
                output,
                initialized in
                opened = sealed.withUnsafeBytes { bytes in
                    try? opener.open(  // any failure is reported as tampering
                        UnsafeRawBufferPointer(rebasing: bytes[0..<count]),
                        associatedData: associatedData,
                        into: UnsafeMutableRawBufferPointer(output)
                    )
                }
                initialized = opened?.count ?? 0
            }
            guard let opened else { throw AttachmentFile.tampered("a chunk was altered, moved or reordered") }
            isLast = opened.isFinal
            if isLast, try !Self.read(handle, count: 1).isEmpty {
                throw AttachmentFile.tampered("data follows its final chunk")
            }
        } else {
            plaintext = try Self.read(handle, count: AttachmentFile.chunkSize)
            isLast = plaintext.isEmpty
        }
        length += Int64(plaintext.count)
        // Encrypted chunks are authenticated already (bound to their document, name and position); the digest is
        // what protects plain files.
        if opener == nil { hasher.update(data: plaintext) }
        guard length <= expected.length else { throw AttachmentFile.tampered("it is longer than recorded") }
        if isLast {
            done = true
            guard length == expected.length else { throw AttachmentFile.tampered("its length differs from the record") }
            if opener == nil {
                let digest = "sha256-" + Data(hasher.finalize()).base64EncodedString()
                guard ConstantTime.equals(Array(digest.utf8), Array(expected.digest.utf8)) else {
                    throw AttachmentFile.tampered("its digest differs from the record")
                }
            }
            if plaintext.isEmpty { return nil }
        }
        return plaintext
    }

    /// Up to about `limit` bytes of authenticated chunks (one blocking call for several chunks), or nil at the end.
    func nextBatch(limit: Int = 1 << 20) throws(DatastoreError) -> [[UInt8]]? {
        var batch: [[UInt8]] = []
        var size = 0
        while size < limit, let chunk = try next() {
            size += chunk.count
            batch.append(chunk)
        }
        return batch.isEmpty ? nil : batch
    }

    /// Fills `buffer` from the file (fewer bytes only at its end); returns how many were read.
    private static func read(_ handle: FileHandle, into buffer: inout [UInt8]) throws(DatastoreError) -> Int {
        var filled = 0
        while filled < buffer.count {
            let result = buffer.withUnsafeMutableBytes { bytes in
                systemRead(handle.fileDescriptor, UnsafeMutableRawBufferPointer(rebasing: bytes[filled...]))
            }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else {
                throw DatastoreError(.storage, "the attachment file cannot be read (errno \(errno))")
            }
            if result == 0 { break }
            filled += result
        }
        return filled
    }

    private static func read(_ handle: FileHandle, count: Int) throws(DatastoreError) -> [UInt8] {
        do {
            return Array(try handle.read(upToCount: count) ?? Data())
        } catch {
            throw DatastoreError(.storage, "the attachment file cannot be read", underlying: error)
        }
    }
}

/// `read(2)` into `buffer`, named apart from the reader's own `read` methods.
private func systemRead(_ descriptor: Int32, _ buffer: UnsafeMutableRawBufferPointer) -> Int {
    guard let base = buffer.baseAddress else { return 0 }
    return read(descriptor, base, buffer.count)
}

extension UInt8 {
    /// `0-9`, `a-f` (the random file names are lowercase).
    var isHexDigitASCII: Bool { (0x30...0x39).contains(self) || (0x61...0x66).contains(self) }
}
