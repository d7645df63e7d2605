import StrongroomClient
// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

/// An error of replication. Compare ``code``s; messages never contain keys, document IDs or contents.
public struct SyncError: StrongroomError {
    /// What kind of failure this is.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Kind: String, Hashable, Sendable {
            case tampered, invalidRecord, unsupportedVersion, invalidName, invalidKey, invalidResponse, readOnly,
                accessRevoked, notOwner, quotaExceeded, otherHome
        }

        private let kind: Kind

        /// A revision record does not agree with itself: its blind tags are not those of the document and revision
        /// it holds (swapped between documents, or replayed under another tag). Nothing of it is applied.
        public static let tampered = Code(kind: .tampered)
        /// A revision record is malformed or out of bounds: a missing field, an invalid revision ID, an ancestry
        /// that is not a chain, a body too large. Nothing of it is applied.
        public static let invalidRecord = Code(kind: .invalidRecord)
        /// A revision record of a format version this build does not know.
        public static let unsupportedVersion = Code(kind: .unsupportedVersion)
        /// A datastore name that is empty or longer than ``ReplicationLimits/maximumNameBytes``.
        public static let invalidName = Code(kind: .invalidName)
        /// The server answered against the protocol: a changes feed page that does not move past the checkpoint
        /// (which would replay forever). Nothing of that page is applied.
        public static let invalidResponse = Code(kind: .invalidResponse)
        /// This client may only read the shared datastore: its local revisions the server lacks were not pushed
        /// (they stay local; discard them, or ask the owner for write access).
        public static let readOnly = Code(kind: .readOnly)
        /// The owner no longer shares the datastore with this client (or never did). Unless the replicator keeps a
        /// copy, the local datastore's documents have been purged.
        public static let accessRevoked = Code(kind: .accessRevoked)
        /// The server refused a write over its caps (HTTP 413): a revision record larger than it takes, more
        /// records of the datastore than one writer may keep (`--sync-records-per-writer`: revisions, checkpoints,
        /// purge markers and attachment bodies together), more revisions of one document
        /// (`--sync-revisions-per-document`), an attachment larger than it takes (`--maximum-attachment-bytes`) or
        /// more attachment bytes than the datastore may hold (`--sync-attachment-bytes`). Nothing of that batch was
        /// stored; compact, or ask the operator for more.
        public static let quotaExceeded = Code(kind: .quotaExceeded)
        /// Only the datastore's owner may change its members.
        public static let notOwner = Code(kind: .notOwner)
        /// A key that is not 32 bytes.
        public static let invalidKey = Code(kind: .invalidKey)
        /// The datastore replicates with another client or server (its home, set by its first replication): nothing
        /// was sent or applied. Replicate it with that client, or move it on purpose (``Replicator/rehome()``).
        public static let otherHome = Code(kind: .otherHome)

        public var description: String { kind.rawValue }
    }

    public let code: Code
    public let context: ErrorContext

    public init(code: Code, context: ErrorContext) { (self.code, self.context) = (code, context) }
}

extension SyncError {
    /// `body`'s result; a refusal over the server's caps (HTTP 413) becomes ``Code/quotaExceeded`` saying `what`
    /// was refused, any other error passes through.
    static func overCaps<T>(_ what: String, _ body: () async throws -> T) async throws -> T {
        let outcome: Result<T, any Error>
        do {
            outcome = .success(try await body())
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let value): return value
        case .failure(let error) where (error as? ClientError)?.status == 413:
            throw SyncError(.quotaExceeded, "the server refused \(what): over its caps", underlying: error)
        case .failure(let error): throw error
        }
    }
}
