// Strongroom — SPDX-License-Identifier: Apache-2.0
public import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One revision of a document (CDTDatastore's `CDTDocumentRevision`): its ID, revision ID, whether it is a
/// tombstone, its sequence in the datastore, and its JSON body.
///
/// Change ``body`` and pass the revision to ``Datastore/update(from:body:)`` (or return it from a conflict
/// resolver) to write a child revision. Use ``decode(_:)`` for your own `Decodable` types.
public struct DocumentRevision: Sendable, Hashable {
    /// The document's ID.
    public let docID: String
    /// This revision's ID, `N-<hash>`.
    public let revID: String
    /// Whether this revision is a deletion (a tombstone).
    public let isDeleted: Bool
    /// The order in which this revision was written to this datastore.
    public let sequence: Int64
    /// The JSON object; empty for a tombstone, and for an old revision whose body compaction removed.
    public var body: [String: JSONValue]
    /// Whether compaction removed this (non-leaf) revision's body; its ID and place in the tree stay.
    public let isCompacted: Bool
    /// The revision's attachments by name (metadata only), carried forward from its parent unless removed.
    public internal(set) var attachments: [String: Attachment] = [:]

    /// The revision's generation: `N` in `N-<hash>`, 1 for a document's first revision.
    public var generation: Int { (try? RevisionID.parse(revID).generation) ?? 0 }  // stored IDs are valid

    /// The body decoded as `type`.
    ///
    /// - Throws: ``DatastoreError/Code/invalidBody`` when the body does not decode as `type`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws(DatastoreError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: JSONEncoder().encode(body))
        } catch {
            throw DatastoreError(.invalidBody, "the body does not decode as \(T.self)", underlying: error)
        }
    }
}

/// One operation of ``Datastore/bulkWrite(_:)``.
public enum DocumentWrite: Sendable, Hashable {
    /// Creates a document (a generated ID when `id` is nil), as ``Datastore/createDocument(id:body:)``.
    case create(id: String?, body: [String: JSONValue])
    /// Writes a child of `revision`, as ``Datastore/update(from:body:)``.
    case update(from: DocumentRevision, body: [String: JSONValue])
    /// Writes a tombstone child of `revision`, as ``Datastore/delete(from:)``.
    case delete(from: DocumentRevision)
    /// Adds a revision with its history (newest first) as a replicator receives it, as
    /// ``Datastore/forceInsert(docID:history:body:isDeleted:)``: many of them in one ``Datastore/bulkWrite(_:)``
    /// is how a pull lands a page.
    case forceInsert(docID: String, history: [String], body: [String: JSONValue], isDeleted: Bool)
}
