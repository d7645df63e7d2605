// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// An attachment's batches on their way into its file, in three steps on threads of the blocking executor: each
/// batch is hashed and sealed at once (two threads), then written while the next batch is hashed and sealed, so an
/// attachment takes about as long as its slowest step rather than the sum of them.
///
/// At most one batch is sealing and one is being written at a time, and ``add(_:)`` waits for both before it hands
/// over the next: memory stays a few batches however long the attachment is. One task's value.
struct AttachmentPipeline {
    private let writer: AttachmentWriter
    /// The batch added last: hashed and sealed; its sealed bytes are the result.
    private var sealing: Task<[UInt8], any Error>?
    /// The batch before it: written.
    private var writing: Task<Void, any Error>?

    init(writer: AttachmentWriter) { self.writer = writer }

    /// Hands over the next `batch` of plaintext, in content order, once the batch before it is sealed and the one
    /// before that is written.
    mutating func add(_ batch: [UInt8]) async throws {
        let sealed = try await takeSealed()
        if let sealed { writing = Self.startWriting(sealed, to: writer) }
        sealing = Self.startSealing(batch, writer)
    }

    /// Writes the last batch handed over and waits for every write (the writer's `finish` comes next).
    mutating func finish() async throws {
        if let sealed = try await takeSealed() { try await Self.write(sealed, to: writer) }
    }

    /// Waits for whatever is in flight, ignoring its errors: after a failure, before the file is discarded.
    mutating func drain() async {
        _ = try? await sealing?.value
        _ = try? await writing?.value
        (sealing, writing) = (nil, nil)
    }

    /// The sealed bytes of the batch in flight (nil when there is none), once the write before it has ended too.
    private mutating func takeSealed() async throws -> [UInt8]? {
        let sealed = try await sealing?.value
        sealing = nil
        try await writing?.value
        writing = nil
        return sealed
    }

    // The tasks start in static functions: made inside the mutating methods, Swift 6.3's region checker rejects them.
    private static func startWriting(_ sealed: [UInt8], to writer: AttachmentWriter) -> Task<Void, any Error> {
        Task { try await write(sealed, to: writer) }
    }

    private static func startSealing(_ batch: [UInt8], _ writer: AttachmentWriter) -> Task<[UInt8], any Error> {
        Task { try await hashAndSeal(batch, writer) }
    }

    private static func write(_ sealed: [UInt8], to writer: AttachmentWriter) async throws(DatastoreError) {
        try await BlockingExecutor.shared.run { _ throws(DatastoreError) in try writer.write(sealed: sealed) }
    }

    /// Seals `batch` on one thread while another hashes it: the digest is over the plaintext, apart from the sealing.
    private static func hashAndSeal(
        _ batch: [UInt8],
        _ writer: AttachmentWriter
    ) async throws(DatastoreError) -> [UInt8] {
        async let hashed: Void = BlockingExecutor.shared.run { _ in writer.hash(batch) }
        do {
            let sealed = try await BlockingExecutor.shared.run { _ throws(DatastoreError) in try writer.seal(batch) }
            await hashed
            return sealed
        } catch {
            await hashed
            throw error
        }
    }
}
