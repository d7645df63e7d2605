// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomSQLite

#if canImport(Glibc)
import Glibc
#endif

extension Datastore {
    /// Adds (or replaces) the attachment `name` by writing a child of `revision` with the same body, streaming
    /// `contents` to disk in constant memory (CDTDatastore's `attachments` on an updated revision). Other
    /// attachments are carried forward.
    ///
    /// The body file is written and synced first, under a random name, and becomes visible only when the revision
    /// commits; a crash in between leaves nothing visible, and the next ``compact()`` removes the file.
    ///
    /// - Throws: ``DatastoreError/Code/conflict`` when `revision` is not the current live leaf (checked again at
    ///   commit); ``DatastoreError/Code/invalidArgument`` for a bad name or content type;
    ///   ``DatastoreError/Code/documentTooLarge`` past ``DatastoreLimits/maximumAttachmentBytes``;
    ///   ``DatastoreError/Code/cancelled`` when the calling task is cancelled before the contents end (a stream
    ///   cut short by cancellation is never committed as the whole attachment); the sequence's own error, wrapped
    ///   as ``DatastoreError/Code/storage``. Nothing is kept then.
    @discardableResult
    public func addAttachment<Contents: AsyncSequence>(
        named name: String,
        contentType: String,
        to revision: DocumentRevision,
        contents: Contents
    ) async throws(DatastoreError) -> DocumentRevision where Contents.Element == [UInt8] {
        try Self.validateAttachment(name: name, contentType: contentType)
        try DocumentID.validate(revision.docID)
        let revpos = try RevisionID.parse(revision.revID).generation + 1
        let writer = try await attachmentWriter(docID: revision.docID, name: name, revpos: revpos)
        // Gathered into about 1 MiB per blocking call (fewer thread hops, the same constant memory bound), then a
        // pipeline: while one batch is written, the next is hashed on one thread and sealed on another, and the one
        // after it is gathered.
        var pipeline = AttachmentPipeline(writer: writer)
        do {
            var gathered: [UInt8] = []
            gathered.reserveCapacity(Self.attachmentBatch + (64 << 10))
            for try await chunk in contents {
                gathered += chunk
                if gathered.count >= Self.attachmentBatch {
                    try await pipeline.add(gathered)
                    gathered = []
                    gathered.reserveCapacity(Self.attachmentBatch + (64 << 10))
                }
            }
            // A stream ends, rather than throws, when its task is cancelled: what arrived is not the whole attachment.
            guard !Task.isCancelled else {
                throw DatastoreError(.cancelled, "the attachment was cancelled before its contents were complete")
            }
            try await pipeline.add(gathered)
            try await pipeline.finish()
        } catch let error as DatastoreError {
            await pipeline.drain()  // the writer is the in-flight batches' until they end
            writer.discard()
            throw error
        } catch {
            await pipeline.drain()
            writer.discard()
            throw DatastoreError(.storage, "the attachment's contents failed", underlying: error)
        }
        do {
            let digest = try await BlockingExecutor.shared.run { _ throws(DatastoreError) in try writer.finish() }
            let attachment = Attachment(
                name: name,
                contentType: contentType,
                length: writer.length,
                digest: digest,
                revpos: revpos
            )
            return try await write { store throws(DatastoreError) in
                try store.attach(AttachmentRow(attachment: attachment, file: writer.name), to: revision) {
                    () throws(DatastoreError) in try writer.commit()
                }
            }
        } catch {
            writer.discard()
            throw error
        }
    }

    /// How much plaintext one blocking call hashes, seals and writes.
    static let attachmentBatch = 1 << 20

    /// Adds the file at `url` as the attachment `name` (streamed, as ``addAttachment(named:contentType:to:contents:)``).
    ///
    /// - Parameters:
    ///   - name: the attachment's name.
    ///   - contentType: its MIME type.
    ///   - revision: the current live leaf to attach to.
    ///   - url: the file to read.
    ///   - progress: called with the bytes read so far after each 64 KiB chunk, for a progress bar.
    @discardableResult
    public func addAttachment(
        named name: String,
        contentType: String,
        to revision: DocumentRevision,
        fromFile url: URL,
        progress: (@Sendable (Int64) -> Void)? = nil
    ) async throws(DatastoreError) -> DocumentRevision {
        guard let handle = FileHandle(forReadingAtPath: url.path) else {
            throw DatastoreError(.notFound, "the file to attach cannot be opened")
        }
        defer { try? handle.close() }  // read-only: closing cannot lose data
        let chunks = AsyncThrowingStream<[UInt8], any Error> {
            try await BlockingExecutor.shared.run { _ in
                let data = try handle.read(upToCount: AttachmentFile.chunkSize) ?? Data()
                if let progress, !data.isEmpty { progress(Int64(clamping: try handle.offset())) }
                return data.isEmpty ? nil : Array(data)
            }
        }
        return try await addAttachment(named: name, contentType: contentType, to: revision, contents: chunks)
    }

    /// Removes the attachment `name` by writing a child of `revision` without it.
    ///
    /// - Throws: ``DatastoreError/Code/notFound`` when `revision` has no such attachment;
    ///   ``DatastoreError/Code/conflict`` when it is not the current live leaf.
    @discardableResult
    public func removeAttachment(
        named name: String,
        from revision: DocumentRevision
    ) async throws(DatastoreError)
        -> DocumentRevision
    {
        try DocumentID.validate(revision.docID)
        _ = try RevisionID.parse(revision.revID)
        return try await write { store throws(DatastoreError) in try store.detach(name, from: revision) }
    }

    /// The content of attachment `name` of `revision`, in chunks of at most 64 KiB, each authenticated before it is
    /// delivered; the sequence ends with ``DatastoreError/Code/tampered`` if the file was altered, cut short,
    /// extended or moved from another document — after which nothing more is delivered.
    public func attachmentContents(
        named name: String,
        of revision: DocumentRevision
    ) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let reader = try await self.reader(named: name, of: revision)
                    while let batch = try await BlockingExecutor.shared.run({ _ throws(DatastoreError) in
                        try reader.nextBatch()
                    }) {
                        for chunk in batch { continuation.yield(chunk) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// Writes attachment `name` of `revision` to a new file at `destination`: to a temporary file beside it first,
    /// renamed into place only after every byte authenticated, so a tampered attachment leaves no file behind.
    ///
    /// - Parameters:
    ///   - name: the attachment's name.
    ///   - revision: the revision that carries it.
    ///   - destination: the file to create; never replaced.
    ///   - progress: called with the bytes written so far after each chunk, for a progress bar.
    /// - Throws: ``DatastoreError/Code/tampered``; ``DatastoreError/Code/invalidArgument`` when `destination`
    ///   exists; ``DatastoreError/Code/notFound`` for an unknown attachment.
    public func readAttachment(
        named name: String,
        of revision: DocumentRevision,
        to destination: URL,
        progress: (@Sendable (Int64) -> Void)? = nil
    )
        async throws(DatastoreError)
    {
        guard !FileManager.default.fileExists(atPath: destination.path) else {
            throw DatastoreError(.invalidArgument, "the destination exists; it is not replaced")
        }
        let reader = try await reader(named: name, of: revision)
        try await BlockingExecutor.shared.run { _ throws(DatastoreError) in
            // Unnamed until complete (NewFile): a failed, cancelled or killed read leaves no partial plaintext.
            var readFailure: DatastoreError?
            do throws(CryptoError) {
                var written: Int64 = 0
                try NewFile.write(to: destination.path) { append throws(CryptoError) in
                    while true {
                        var chunk: [UInt8]
                        do throws(DatastoreError) {
                            guard let next = try reader.next() else { return }
                            chunk = next
                        } catch {
                            readFailure = error
                            throw CryptoError(.io, "the attachment could not be read")
                        }
                        written += Int64(chunk.count)
                        try append(&chunk)
                        progress?(written)
                    }
                }
            } catch {
                if let readFailure { throw readFailure }
                throw DatastoreError(.storage, "the attachment could not be written out", underlying: error)
            }
        }
    }

    /// A reader for attachment `name` of `revision`, after looking up its record.
    private func reader(
        named name: String,
        of revision: DocumentRevision
    ) async throws(DatastoreError)
        -> AttachmentReader
    {
        try DocumentID.validate(revision.docID)
        _ = try RevisionID.parse(revision.revID)
        let (row, datastoreID) = try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) -> (AttachmentRow?, String) in
                guard let docRow = try store.docRow(revision.docID),
                    let stored = try store.revision(docRow: docRow, revID: revision.revID)
                else { return (nil, "") }
                let row = try store.attachmentRows(sequence: stored.sequence).first { $0.attachment.name == name }
                return (row, try store.datastoreID())
            }
        }
        guard let row else { throw DatastoreError(.notFound, "no attachment of that name on this revision") }
        // The record names a file we made: 32 hex digits. Anything else (an edited plain database) is not followed.
        guard row.file.utf8.count == 32, row.file.utf8.allSatisfy({ $0.isHexDigitASCII }) else {
            throw AttachmentFile.tampered("its record names an unexpected file")
        }
        let associatedData = AttachmentFile.associatedData(
            datastoreID: datastoreID,
            docID: revision.docID,
            name: name,
            revpos: row.attachment.revpos
        )
        let (url, key) = (attachmentFolder.appending(path: row.file), attachmentKey)
        return try await BlockingExecutor.shared.run { _ throws(DatastoreError) in
            try AttachmentReader(url: url, key: key, associatedData: associatedData, expected: row.attachment)
        }
    }

    /// Names: 1 to 255 UTF-8 bytes without control characters; content types 1 to 255 printable ASCII bytes.
    static func validateAttachment(name: String, contentType: String) throws(DatastoreError) {
        guard (1...255).contains(name.utf8.count),
            !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
            (1...255).contains(contentType.utf8.count), contentType.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F })
        else {
            throw DatastoreError(
                .invalidArgument,
                "an attachment name is 1 to 255 bytes without control characters; a content type 1 to 255 ASCII"
            )
        }
    }

    /// Removes body files no revision refers to: those of compacted revisions, and leftovers of writes that never
    /// committed (a `.partial` file is removed only when no writer holds its lock). Runs inside the write
    /// transaction, so no concurrent commit can be adding a reference meanwhile.
    static func sweepAttachmentFiles(in folder: URL, keeping referenced: Set<String>) {
        // Sweeping leftovers: a folder that cannot be listed has none to sweep.
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
        for name in names where !referenced.contains(name) {
            let url = folder.appending(path: name)
            if name.hasSuffix(".partial") {
                guard let handle = FileHandle(forReadingAtPath: url.path) else { continue }
                defer { try? handle.close() }  // read-only probe
                guard flock(handle.fileDescriptor, LOCK_EX | LOCK_NB) == 0 else { continue }  // a live write
            }
            try? FileManager.default.removeItem(at: url)  // best effort: the next compaction tries again
        }
    }
}

extension RevisionStore {
    /// Writes a child of `parent` (the current live leaf) with the same body, its attachments and `row`; runs
    /// `commitFile` (the rename into place) once the revision is certain to be written.
    func attach(
        _ row: AttachmentRow,
        to parent: DocumentRevision,
        commitFile: () throws(DatastoreError) -> Void
    ) throws(DatastoreError) -> DocumentRevision {
        try child(of: parent, replacing: row.attachment.name, with: row, commitFile: commitFile)
    }

    /// Writes a child of `parent` without attachment `name`.
    func detach(_ name: String, from parent: DocumentRevision) throws(DatastoreError) -> DocumentRevision {
        try child(of: parent, replacing: name, with: nil, commitFile: {})
    }

    private func child(
        of parent: DocumentRevision,
        replacing name: String,
        with added: AttachmentRow?,
        commitFile: () throws(DatastoreError) -> Void
    ) throws(DatastoreError) -> DocumentRevision {
        let current = try sql { () throws(SQLiteError) -> RevisionRow? in
            guard let docRow = try docRow(parent.docID) else { return nil }
            return try revision(docRow: docRow, revID: parent.revID)
        }
        guard let current, current.isCurrent, !current.isDeleted, let json = current.json else {
            throw DatastoreError(.conflict, "the revision is not the document's current revision")
        }
        let existing = try sql { () throws(SQLiteError) in try attachmentRows(sequence: current.sequence) }
        guard added != nil || existing.contains(where: { $0.attachment.name == name }) else {
            throw DatastoreError(.notFound, "no attachment of that name on this revision")
        }
        let kept = existing.filter { $0.attachment.name != name }
        let all = kept.map(\.attachment) + (added.map { [$0.attachment] } ?? [])
        let revID = RevisionID.next(parent: current.revID, isDeleted: false, json: json, attachments: all)
        try commitFile()
        let child = try sql { () throws(SQLiteError) -> RevisionRow in
            let child = try insertRevision(
                docRow: current.docRow,
                docID: current.docID,
                revID: revID,
                parent: current,
                isDeleted: false,
                json: json
            )
            for row in kept { try insertAttachment(row, sequence: child.sequence) }
            if let added { try insertAttachment(added, sequence: child.sequence) }
            return child
        }
        return try load(child)
    }
}

extension Datastore {
    /// A writer of a new attachment body of `docID`, encrypted (when the datastore is) and bound to the document,
    /// the name and the revpos.
    func attachmentWriter(docID: String, name: String, revpos: Int) async throws(DatastoreError) -> AttachmentWriter {
        let datastoreID = try await read { store throws(DatastoreError) in
            try store.sql { () throws(SQLiteError) in try store.datastoreID() }
        }
        let (folder, key, limit) = (attachmentFolder, attachmentKey, limits.maximumAttachmentBytes)
        let associatedData = AttachmentFile.associatedData(
            datastoreID: datastoreID,
            docID: docID,
            name: name,
            revpos: revpos
        )
        return try await BlockingExecutor.shared.run { _ throws(DatastoreError) in
            try AttachmentWriter(folder: folder, key: key, associatedData: associatedData, limit: limit)
        }
    }
}
