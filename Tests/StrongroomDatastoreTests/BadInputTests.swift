// Strongroom — SPDX-License-Identifier: Apache-2.0
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// Hostile bodies, IDs and revisions: each is a typed error and nothing is written.
@Suite struct BadInputTests {
    static func nested(_ depth: Int) -> JSONValue {
        var value = JSONValue.null
        for _ in 0..<depth { value = .array([value]) }
        return value
    }

    @Test(
        "reserved fields, deep nesting, non-finite numbers and oversize bodies are refused",
        arguments: StoreKind.allCases
    )
    func bodies(kind: StoreKind) async throws {
        let limits = DatastoreLimits(maximumDocumentBytes: 4096, maximumDepth: 8)
        try await withDatastore(kind, limits: limits) { store, _ in
            let cases: [(DatastoreError.Code, [String: JSONValue])] = [
                (.invalidBody, ["_deleted": .bool(true)]),
                (.invalidBody, ["_attachments": .object([:])]),
                (.invalidBody, ["_conflicts": .array([])]),
                (.invalidBody, ["_anything": .null]),
                (.invalidBody, ["_id": .string("another-id")]),
                (.invalidBody, ["_rev": .string("1-abc")]),
                (.invalidBody, ["deep": Self.nested(8)]),
                (.invalidBody, ["n": .number(.nan)]),
                (.invalidBody, ["n": .number(.infinity)]),
                (.documentTooLarge, ["big": .string(String(repeating: "x", count: 5000))]),
            ]
            for (code, body) in cases {
                let error = await #expect(throws: DatastoreError.self) {
                    try await store.createDocument(id: "doc", body: body)
                }
                #expect(error?.code == code, "\(body.keys)")
            }
            #expect(try await store.documentCount() == 0)
            // A deeply nested value far beyond the limit is refused without recursion.
            let error = await #expect(throws: DatastoreError.self) {
                try await store.createDocument(id: "doc", body: ["deep": Self.nested(2_000)])
            }
            #expect(error?.code == .invalidBody)
            // `_id` and `_rev` that match are accepted and not stored.
            let created = try await store.createDocument(id: "doc", body: ["_id": .string("doc"), "a": .number(1)])
            #expect(created.body == ["a": .number(1)])
            let updated = try await store.update(
                from: created,
                body: ["_rev": .string(created.revID), "a": .number(2)]
            )
            #expect(updated.body == ["a": .number(2)])
        }
    }

    @Test("invalid document IDs, revision IDs and paging arguments are refused", arguments: StoreKind.allCases)
    func identifiers(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            for id in ["", "_design/x", "_local/x", "tab\there", "nul\u{0}", String(repeating: "é", count: 257)] {
                let error = await #expect(throws: DatastoreError.self) {
                    try await store.createDocument(id: id, body: [:])
                }
                #expect(error?.code == .invalidDocumentID)
                let read = await #expect(throws: DatastoreError.self) { try await store.document(id: id) }
                #expect(read?.code == .invalidDocumentID)
            }
            let created = try await store.createDocument(id: "ok", body: [:])
            for rev in ["", "1", "-abc", "1-", "x-abc", "1-ab/c", "1-ab c", "4294967296-aa"] {
                let error = await #expect(throws: DatastoreError.self) {
                    try await store.document(id: "ok", rev: rev)
                }
                #expect(error?.code == .invalidRevisionID, "\(rev)")
            }
            let unknown = await #expect(throws: DatastoreError.self) {
                try await store.document(id: "ok", rev: "1-ffffffffffffffffffffffffffffffff")
            }
            #expect(unknown?.code == .notFound)
            let missing = await #expect(throws: DatastoreError.self) { try await store.document(id: "missing") }
            #expect(missing?.code == .notFound)
            let paging = await #expect(throws: DatastoreError.self) { try await store.allDocuments(offset: -1) }
            #expect(paging?.code == .invalidArgument)
            let page = await #expect(throws: DatastoreError.self) { try await store.allDocuments(limit: 10_001) }
            #expect(page?.code == .documentTooLarge)
            let tooMany = await #expect(throws: DatastoreError.self) {
                try await store.documents(ids: Array(repeating: "ok", count: 10_001))
            }
            #expect(tooMany?.code == .documentTooLarge)
            #expect(try await store.document(id: "ok") == created)
        }
    }
}
