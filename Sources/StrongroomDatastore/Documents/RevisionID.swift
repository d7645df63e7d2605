// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import StrongroomCore

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Revision IDs `N-<hash>`, as CouchDB and CDTDatastore make them.
enum RevisionID {
    /// The largest generation accepted (CouchDB's is a 32-bit count in practice).
    static let maximumGeneration = Int(Int32.max)

    /// The generation and hash of `revID`.
    ///
    /// - Throws: ``DatastoreError/Code/invalidRevisionID`` unless it is 1 to 10 digits (no leading zero, at most
    ///   2³¹−1), a hyphen, and 1 to 64 ASCII letters or digits.
    static func parse(_ revID: String) throws(DatastoreError) -> (generation: Int, hash: Substring) {
        let invalid = DatastoreError(.invalidRevisionID, "a revision ID is N-<hash>")
        guard revID.utf8.count <= 75, let dash = revID.firstIndex(of: "-") else { throw invalid }
        let digits = revID[..<dash]
        let hash = revID[revID.index(after: dash)...]
        guard (1...10).contains(digits.count), digits.first != "0", digits.allSatisfy({ $0.isASCII && $0.isNumber }),
            let generation = Int(digits), generation <= maximumGeneration,
            (1...64).contains(hash.count), hash.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) })
        else { throw invalid }
        return (generation, hash)
    }

    /// The ID of a new revision: `generation+1` and the MD5 over the parent ID's length byte and UTF-8 text, a
    /// deleted byte, the attachments' digests in name order, and the stored JSON body — CDTDatastore's (TouchDB's)
    /// rule, so the same edit of the same parent gets the same ID on every replica. MD5 here names a revision, it
    /// protects nothing.
    static func next(parent: String?, isDeleted: Bool, json: Data, attachments: [Attachment] = []) -> String {
        let generation = parent.flatMap { try? parse($0).generation } ?? 0  // parents are validated before
        var parentText = parent ?? ""
        var md5 = Insecure.MD5()
        // Straight from the bytes: no array is made for the parent, its length byte or the deleted byte.
        withUnsafeBytes(of: UInt8(truncatingIfNeeded: parentText.utf8.count)) { md5.update(bufferPointer: $0) }
        parentText.withUTF8 { md5.update(bufferPointer: UnsafeRawBufferPointer($0)) }
        withUnsafeBytes(of: UInt8(isDeleted ? 1 : 0)) { md5.update(bufferPointer: $0) }
        for attachment in attachments.sorted(by: { $0.name < $1.name }) {
            md5.update(data: Array(attachment.digest.utf8))
        }
        md5.update(data: json)
        let hex = md5.finalize().withUnsafeBytes { $0.hexString }
        return "\(generation + 1)-\(hex)"
    }

    /// Checks a replicated history: newest first, 1 to `limit` valid IDs of consecutive generations.
    static func validateHistory(_ history: [String], limit: Int) throws(DatastoreError) {
        guard (1...limit).contains(history.count) else {
            throw DatastoreError(.invalidRevisionID, "a revision history has 1 to \(limit) revision IDs")
        }
        var previous: Int?
        for revID in history {
            let generation = try parse(revID).generation
            if let previous, generation != previous - 1 {
                throw DatastoreError(.invalidRevisionID, "a revision history is newest first, one generation apart")
            }
            previous = generation
        }
    }
}

/// Document IDs.
enum DocumentID {
    /// The longest ID, in UTF-8 bytes.
    static let maximumBytes = 512

    /// - Throws: ``DatastoreError/Code/invalidDocumentID`` for an empty or over-long ID, control characters, or a
    ///   leading `_` (CouchDB reserves those for its own documents).
    static func validate(_ id: String) throws(DatastoreError) {
        let utf8 = id.utf8
        let isPrintableASCII = utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }  // the common case, checked cheaply
        guard (1...maximumBytes).contains(utf8.count), utf8.first != UInt8(ascii: "_"),
            isPrintableASCII || !id.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw DatastoreError(
                .invalidDocumentID,
                "a document ID is 1 to \(maximumBytes) bytes, without control characters, not starting with _"
            )
        }
    }

    /// A new random ID: 32 lowercase hex digits (128 bits), as CouchDB's UUIDs.
    static func generate() -> String {
        SecureRandom.data(count: 16).hexString
    }
}
