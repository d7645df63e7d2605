// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// Cloudant Query selectors against a small CDTQ-style dataset kept as a fixture (`Vectors/query-fixtures.json`):
/// each query's expected document IDs, and malformed selectors that must name their offending part.
@Suite struct QueryTests {
    struct Fixture: Decodable {
        struct Query: Decodable {
            var selector: [String: JSONValue]
            var ids: [String]
        }
        struct Invalid: Decodable {
            var selector: [String: JSONValue]
            var names: String
        }
        var documents: [[String: JSONValue]]
        var queries: [Query]
        var invalid: [Invalid]
    }

    static let fixture: Fixture = {
        let url = Bundle.module.url(forResource: "Vectors/query-fixtures", withExtension: "json")!
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static func load(_ store: Datastore) async throws {
        try await store.bulkWrite(
            fixture.documents.map { document in
                var body = document
                let id = body.removeValue(forKey: "_id")?.stringValue
                return .create(id: id, body: body)
            }
        )
    }

    @Test("the fixture's selectors return their documented documents", arguments: StoreKind.allCases)
    func selectors(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await Self.load(store)
            for query in Self.fixture.queries {
                let found = try await store.find(selector: query.selector).map(\.docID).sorted()
                #expect(found == query.ids, "\(query.selector)")
            }
            #expect(try await store.explain(selector: ["name": .string("mike")]).description == "scan")
        }
    }

    @Test("sort, skip, limit and fields", arguments: StoreKind.allCases)
    func paging(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await Self.load(store)
            let sorted = try await store.find(
                selector: ["age": .object(["$gte": .number(12)])],
                sort: [SortField("age", descending: true), SortField("name")]
            )
            #expect(sorted.map(\.docID) == ["mike72", "john44", "fred34", "mike34", "fred12", "mike12"])
            let page = try await store.find(
                selector: ["name": .string("mike")],
                sort: [SortField("age")],
                skip: 1,
                limit: 1
            )
            #expect(page.map(\.docID) == ["mike34"])
            // The largest skip neither traps (skip + limit) nor returns anything.
            #expect(try await store.find(selector: [:], skip: Int.max).isEmpty)
            #expect(try await store.find(selector: ["name": "mike"], sort: [SortField("age")], skip: Int.max).isEmpty)
            #expect(try await store.allDocuments(offset: Int.max).isEmpty)
            #expect(
                try await store.allDocuments(offset: 1, limit: 2, descending: true).map(\.docID) == [
                    "mike34", "mike12",
                ]
            )
            let projected = try await store.find(selector: ["_id": .string("fred34")], fields: ["name"])
            #expect(projected.first?.body == ["name": .string("fred")])
            try await store.delete(from: try await store.document(id: "mike12"))
            #expect(try await store.find(selector: ["name": .string("mike")]).count == 2)  // live documents only
        }
    }

    @Test("malformed selectors are invalidQuery errors naming the offending part")
    func invalid() async throws {
        try await withDatastore(.unencrypted) { store, _ in
            for bad in Self.fixture.invalid {
                let error = await #expect(throws: DatastoreError.self) { try await store.find(selector: bad.selector) }
                #expect(error?.code == .invalidQuery)
                #expect(error?.message.contains(bad.names) == true, "\(error?.message ?? "") should name \(bad.names)")
            }
            var deep: JSONValue = .object(["a": .number(1)])
            for _ in 0..<40 { deep = .object(["$not": deep]) }
            let tooDeep = await #expect(throws: DatastoreError.self) {
                try await store.find(selector: deep.objectValue ?? [:])
            }
            #expect(tooDeep?.code == .invalidQuery)
            let negative = await #expect(throws: DatastoreError.self) {
                try await store.find(selector: [:], skip: -1)
            }
            #expect(negative?.code == .invalidArgument)
        }
    }
}
