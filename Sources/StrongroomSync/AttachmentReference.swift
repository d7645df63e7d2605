// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An attachment as a revision record refers to it (in its encrypted `att` field, a JSON object by attachment name):
/// its metadata, the content address of its body under the datastore's tag key (``RevisionTagKey/attachmentAddress(digest:)``)
/// and the E3DB file record that holds the body, encrypted under the datastore's access key. One body is uploaded once
/// per content address and shared by every revision and document that carries it.
public struct AttachmentReference: Sendable, Hashable, Codable {
    /// Its MIME type.
    public var contentType: String
    /// The body's length in bytes.
    public var length: Int64
    /// `sha256-<base64>` of the body, checked when the body is received.
    public var digest: String
    /// The generation of the revision that added this content.
    public var revpos: Int
    /// The content address: the same for the same body within one datastore, and no plain digest.
    public var address: String
    /// The file record holding the body.
    public var record: UUID

    enum CodingKeys: String, CodingKey {
        case contentType = "type", length = "len", digest, revpos, address = "addr", record = "rec"
    }

    /// The references of a revision, by attachment name, as the record's `att` field holds them.
    static func encode(_ references: [String: AttachmentReference]) -> String {
        guard !references.isEmpty else { return "{}" }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Plain values only: this cannot fail.
        return (try? encoder.encode(references)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The references in a pulled record's `att` field (already bounded to 64 KiB), each checked.
    ///
    /// - Throws: ``SyncError/Code/invalidRecord`` for malformed JSON or a value out of range.
    static func decode(_ text: String, generation: Int) throws(SyncError) -> [String: AttachmentReference] {
        guard text != "{}" else { return [:] }
        let references: [String: AttachmentReference]
        do {
            references = try JSONDecoder().decode([String: AttachmentReference].self, from: Data(text.utf8))
        } catch {
            throw SyncError(.invalidRecord, "the attachment references are malformed", underlying: error)
        }
        guard references.count <= ReplicationLimits.maximumAttachments else {
            throw SyncError(
                .invalidRecord,
                "a revision carries more than \(ReplicationLimits.maximumAttachments) attachments"
            )
        }
        for (name, reference) in references {
            guard !name.isEmpty, name.utf8.count <= 1024, reference.contentType.utf8.count <= 255,
                (0...(1 << 40)).contains(reference.length), (1...max(generation, 1)).contains(reference.revpos),
                reference.digest.hasPrefix("sha256-"), reference.digest.utf8.count == 51,
                reference.address.utf8.count == 43
            else { throw SyncError(.invalidRecord, "an attachment reference is out of range") }
        }
        return references
    }
}
