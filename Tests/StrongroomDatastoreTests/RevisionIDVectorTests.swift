// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// Revision IDs against vectors computed by Python's hashlib (`Vectors/make-revision-ids.py`), so the canonical
/// JSON and the MD5 input are checked against an independent implementation.
@Suite struct RevisionIDVectorTests {
    struct Vector: Decodable {
        var parent: String?
        var deleted: Bool
        var body: [String: JSONValue]
        var canonical: String
        var rev: String
    }

    static let vectors: [Vector] = {
        let url = Bundle.module.url(forResource: "Vectors/revision-ids", withExtension: "json")!
        return try! JSONDecoder().decode([Vector].self, from: Data(contentsOf: url))
    }()

    @Test("revision IDs and canonical JSON match the Python reference", arguments: 0..<6)
    func vector(index: Int) async throws {
        let vector = Self.vectors[index]
        try await withDatastore(.unencrypted) { store, _ in
            // Build a parent with the vector's revision ID, then write the vector's edit on top of it.
            let parent: DocumentRevision? =
                if let parentRev = vector.parent {
                    try await store.forceInsert(docID: "doc", history: [parentRev], body: [:])
                } else { nil }
            let written: DocumentRevision =
                switch (parent, vector.deleted) {
                case (nil, _): try await store.createDocument(id: "doc", body: vector.body)
                case (let parent?, false): try await store.update(from: parent, body: vector.body)
                case (let parent?, true): try await store.delete(from: parent)
                }
            #expect(written.revID == vector.rev)
        }
    }
}
