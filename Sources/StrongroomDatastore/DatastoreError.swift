// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error thrown by ``DatastoreManager`` and ``Datastore``. Compare ``code``s; messages never contain keys or
/// document contents.
public struct DatastoreError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case invalidKey, invalidName, wrongKey, keyRequired, notEncrypted, notFound, storage
            case conflict, invalidDocumentID, invalidRevisionID, invalidBody, documentTooLarge, busy, wrongPassword
            case closed, invalidArgument, tampered, invalidQuery, cancelled
        }

        private let kind: Kind

        /// A key is not exactly 32 bytes. Nothing was opened.
        public static let invalidKey = Code(kind: .invalidKey)
        /// A datastore name is empty, too long, or has characters other than `a-z 0-9 _ $ ( ) + -` (no path
        /// separators, no leading dot).
        public static let invalidName = Code(kind: .invalidName)
        /// The key does not open this encrypted datastore. Nothing was read or written.
        public static let wrongKey = Code(kind: .wrongKey)
        /// The datastore is encrypted (or a key provider returned no key): it is never opened without its key,
        /// and never created unencrypted through a key provider.
        public static let keyRequired = Code(kind: .keyRequired)
        /// A key was given for a datastore that is not encrypted. It is not opened, and not converted.
        public static let notEncrypted = Code(kind: .notEncrypted)
        /// No datastore of that name.
        public static let notFound = Code(kind: .notFound)
        /// The revision given is not the current leaf it must be (a stale update or delete), or the document
        /// exists already. Nothing was written; read the document again and retry.
        public static let conflict = Code(kind: .conflict)
        /// A document ID is empty, longer than 512 UTF-8 bytes, has control characters, or starts with `_`.
        public static let invalidDocumentID = Code(kind: .invalidDocumentID)
        /// A revision ID is not `N-<hash>` (generation 1 to 2³¹−1, hash 1 to 64 letters or digits), or a
        /// revision history is empty, too long or not a chain of consecutive generations.
        public static let invalidRevisionID = Code(kind: .invalidRevisionID)
        /// A body is not a JSON object, nests deeper than the limit, holds a non-finite number, or has a reserved
        /// `_` field other than a matching `_id` or `_rev`.
        public static let invalidBody = Code(kind: .invalidBody)
        /// A body's JSON is larger than ``DatastoreLimits/maximumDocumentBytes``, or a batch is larger than
        /// ``DatastoreLimits/maximumBatchCount``.
        public static let documentTooLarge = Code(kind: .documentTooLarge)
        /// Another connection (in this process or another) held the write lock past
        /// ``DatastoreLimits/lockTimeout``. Nothing was written.
        public static let busy = Code(kind: .busy)
        /// The password does not unwrap the data key (``KeychainKeyProvider``). Nothing was opened.
        public static let wrongPassword = Code(kind: .wrongPassword)
        /// A paging argument is negative.
        public static let invalidArgument = Code(kind: .invalidArgument)
        /// An attachment's file did not authenticate or does not match its record: altered, cut short, extended,
        /// or moved from another document or datastore. No unauthenticated content is returned.
        public static let tampered = Code(kind: .tampered)
        /// A query selector is malformed; the message names the offending part.
        public static let invalidQuery = Code(kind: .invalidQuery)
        /// The datastore was closed.
        public static let closed = Code(kind: .closed)
        /// The calling task was cancelled before the change committed (an attachment's contents ended early).
        /// Nothing was kept.
        public static let cancelled = Code(kind: .cancelled)
        /// The file system or SQLCipher failed.
        public static let storage = Code(kind: .storage)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}
