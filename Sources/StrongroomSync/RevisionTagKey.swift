// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
public import StrongroomCrypto

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The key of a replicated datastore's blind tags, derived from its E3DB access key (HKDF-SHA-256, info
/// `strongroom.sync.tags.v1`), so whoever may read the datastore can compute them and the server cannot.
///
/// - Document tag: base64url(HMAC-SHA-256(key, `d` ‖ len(docID) ‖ docID)).
/// - Revision tag: base64url(HMAC-SHA-256(key, `r` ‖ len(docID) ‖ docID ‖ len(revID) ‖ revID)).
/// - Attachment address: base64url(HMAC-SHA-256(key, `a` ‖ len(digest) ‖ digest)) of an attachment's `sha256-…`
///   digest: the same content has the same address in one datastore, and the address is no plain digest.
///
/// `len` is a 4-byte big-endian length; the tags are 43 characters (32 bytes, unpadded).
public struct RevisionTagKey: Sendable {
    static let label = "strongroom.sync.tags.v1"

    private let key: HMACSHA256Key

    /// The tag key of the datastore whose replication key (its type's access key) is `accessKey`.
    public init(accessKey: AccessKey) throws(SyncError) {
        do {
            key = HMACSHA256Key(try HKDFSHA256.deriveKey(from: accessKey.rawRepresentation, label: Self.label))
        } catch {
            throw SyncError(.invalidKey, "the tag key could not be derived", underlying: error)
        }
    }

    /// The blind tag of the document `docID`.
    public func documentTag(_ docID: String) -> String {
        tag(TagEncoding.message(domain: "d", [docID]))
    }

    /// The blind tag of revision `revID` of document `docID`.
    public func revisionTag(docID: String, revID: String) -> String {
        tag(TagEncoding.message(domain: "r", [docID, revID]))
    }

    /// The content address of an attachment whose digest is `digest` (`sha256-<base64>`).
    public func attachmentAddress(digest: String) -> String {
        tag(TagEncoding.message(domain: "a", [digest]))
    }

    private func tag(_ message: [UInt8]) -> String {
        Base64URL.encode(Data(message.withUnsafeBytes { key.authenticationCode(for: $0) }))
    }
}
