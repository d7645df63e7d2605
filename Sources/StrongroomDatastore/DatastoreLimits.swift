// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

/// Bounds on what a datastore accepts, so that no input can exhaust memory, the stack or the disk.
///
/// The defaults suit documents of application data; raise them deliberately.
public struct DatastoreLimits: Sendable, Hashable {
    /// The largest body, measured as its stored JSON (default 1 MiB).
    public var maximumDocumentBytes: Int
    /// The deepest nesting of arrays and objects in a body (default 64).
    public var maximumDepth: Int
    /// The most operations in one bulk write, IDs in one bulk read, or rows in one page (default 10,000).
    public var maximumBatchCount: Int
    /// The longest revision history ``Datastore/forceInsert(docID:history:body:isDeleted:)`` accepts, and the
    /// longest history walked (default 1,000, CouchDB's `revs_limit`).
    public var maximumHistoryLength: Int
    /// The largest attachment (default 4 GiB).
    public var maximumAttachmentBytes: Int64
    /// How long a write waits for another connection's write lock before ``DatastoreError/Code/busy``
    /// (default 5 s).
    public var lockTimeout: Duration
    /// The most memory a datastore's page cache holds, decrypted pages kept for the next read (default 8 MiB,
    /// between 64 KiB and 1 GiB; SQLite's own default is 2 MiB). Every read of a page not in it decrypts and
    /// authenticates the page again: at 8 MiB the index pages of 100,000 documents stay in memory, and reads by
    /// ID run about twice as fast as at 2 MiB.
    public var pageCacheBytes: Int

    /// Creates limits; every value must be positive.
    public init(
        maximumDocumentBytes: Int = 1 << 20,
        maximumDepth: Int = 64,
        maximumBatchCount: Int = 10_000,
        maximumHistoryLength: Int = 1_000,
        maximumAttachmentBytes: Int64 = 1 << 32,
        lockTimeout: Duration = .seconds(5),
        pageCacheBytes: Int = 8 << 20
    ) {
        self.maximumAttachmentBytes = max(0, maximumAttachmentBytes)
        self.maximumDocumentBytes = max(1, maximumDocumentBytes)
        self.maximumDepth = max(1, maximumDepth)
        self.maximumBatchCount = max(1, maximumBatchCount)
        self.maximumHistoryLength = max(1, maximumHistoryLength)
        self.lockTimeout = max(.zero, lockTimeout)
        self.pageCacheBytes = min(max(64 << 10, pageCacheBytes), 1 << 30)
    }

    /// The defaults.
    public static let `default` = DatastoreLimits()

    /// ``lockTimeout`` in whole milliseconds, clamped to SQLite's `Int32`.
    var lockTimeoutMilliseconds: Int32 { Int32(clamping: lockTimeout.microseconds / 1000) }
}
