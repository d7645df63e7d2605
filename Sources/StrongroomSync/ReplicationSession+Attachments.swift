// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomClient
import StrongroomCore
import StrongroomDatastore
import StrongroomWire

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Attachment bodies: uploaded once per content address as file records of the datastore's type, received and
/// checked against the signed revision record that names them.
extension ReplicationSession {
    /// The reference of `attachment`: its body is uploaded as a file record of the type unless this replica knows
    /// one with the same content address already (it uploaded or received it).
    func uploaded(_ attachment: Attachment, of revision: OutgoingRevision) async throws -> AttachmentReference {
        let address = tags.attachmentAddress(digest: attachment.digest)
        let known = names.attachmentKey(address)
        let record: UUID
        if let noted = try await datastore.checkpoint(known).flatMap({ RecordID($0)?.uuid }) {
            record = noted
        } else {
            let source = try await datastore.document(id: revision.docID, rev: revision.revID)
            record = try await SyncError.overCaps("an attachment of a pushed revision") {
                try await client.writeFile(
                    type: type,
                    plain: [
                        RevisionRecord.PlainKey.version: RevisionRecord.formatVersion,
                        RevisionRecord.PlainKey.attachment: address,
                    ],
                    fileName: "attachment",
                    contents: datastore.attachmentContents(named: attachment.name, of: source)
                ).meta.recordID
            }
            try await datastore.setCheckpoint(known, RecordID(record).description)
        }
        return AttachmentReference(
            contentType: attachment.contentType,
            length: attachment.length,
            digest: attachment.digest,
            revpos: attachment.revpos,
            address: address,
            record: record
        )
    }

    /// The attachments of a pulled revision: each body the datastore does not hold yet is downloaded, decrypted and
    /// written (encrypted under the datastore's key) as it arrives, and checked against the digest and length the
    /// signed revision record gives; `staged` shares bodies between revisions of one page.
    func incoming(
        _ references: [String: AttachmentReference],
        docID: String,
        staged: inout [String: StagedAttachment]
    ) async throws -> [IncomingAttachment] {
        var attachments: [IncomingAttachment] = []
        for (name, reference) in references.sorted(by: { $0.key < $1.key }) {
            let attachment = Attachment(
                replicatedName: name,
                contentType: reference.contentType,
                length: reference.length,
                digest: reference.digest,
                revpos: reference.revpos
            )
            let slot = "\(docID)\u{0}\(name)\u{0}\(reference.revpos)\u{0}\(reference.digest)"
            if let body = staged[slot] {
                attachments.append(IncomingAttachment(attachment, staged: body))
                continue
            }
            if try await datastore.hasAttachment(
                docID: docID,
                name: name,
                revpos: reference.revpos,
                digest: reference.digest
            ) {
                attachments.append(IncomingAttachment(attachment, staged: nil))
                continue
            }
            let body = try await datastore.stageAttachment(docID: docID, name: name, revpos: reference.revpos)
            staged[slot] = body
            do {
                _ = try await client.readFile(recordID: reference.record, plaintextSize: reference.length) { piece in
                    try await body.append(piece)
                }
            } catch let error as ClientError where error.code == .tampered {
                throw SyncError(.tampered, "an attachment's body does not decrypt", underlying: error)
            }
            let (length, digest) = try await body.finish()
            guard length == reference.length, ConstantTime.equals(Array(digest.utf8), Array(reference.digest.utf8))
            else {
                throw SyncError(.tampered, "an attachment's body is not the one its revision record names")
            }
            try await datastore.setCheckpoint(
                names.attachmentKey(reference.address),
                RecordID(reference.record).description
            )
            attachments.append(IncomingAttachment(attachment, staged: body))
        }
        return attachments
    }
}
