// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomDatastore
import StrongroomWire
import Testing

/// Query indexes: the examples of CDTDatastore's own query documentation (`Vectors/cdtq-query-doc.json`) return
/// their documented results with and without indexes, indexes catch up lazily after writes and deletes, `explain`
/// names the index, and index contents are encrypted at rest like everything else.
@Suite struct IndexTests {
    struct Fixture: Decodable {
        struct Index: Decodable {
            var name: String
            var type: String
            var fields: [String]
            var tokenizer: String?
        }
        struct Query: Decodable {
            var example: String
            var dataset: String
            var selector: [String: JSONValue]
            var sort: [[String: String]]?
            var fields: [String]?
            var skip: Int?
            var limit: Int?
            var ids: [String]
            var ordered: Bool?
            var body: [String: JSONValue]?
            var index: String?
            var sortIndex: String?
            var needsTextIndex: Bool?
        }
        var datasets: [String: [[String: JSONValue]]]
        var indexes: [Index]
        var queries: [Query]
    }

    static let fixture: Fixture = {
        let url = Bundle.module.url(forResource: "Vectors/cdtq-query-doc", withExtension: "json")!
        return try! JSONDecoder().decode(Fixture.self, from: Data(contentsOf: url))
    }()

    static func load(_ documents: [[String: JSONValue]], into store: Datastore) async throws {
        try await store.bulkWrite(
            documents.map { document in
                var body = document
                let id = body.removeValue(forKey: "_id")?.stringValue
                return .create(id: id, body: body)
            }
        )
    }

    static func defineIndexes(_ store: Datastore) async throws {
        for index in fixture.indexes {
            let kind = QueryIndex.Kind(rawValue: index.type) ?? .json
            let tokenizer = index.tokenizer.flatMap(QueryIndex.Tokenizer.init(rawValue:)) ?? .simple
            let name = try await store.ensureIndexed(
                fields: index.fields,
                name: index.name,
                type: kind,
                tokenizer: tokenizer
            )
            #expect(name == index.name)
        }
    }

    static func sortFields(_ sort: [[String: String]]?) -> [SortField] {
        (sort ?? []).flatMap { $0.map { SortField($0.key, descending: $0.value == "desc") } }
    }

    @Test(
        "CDTDatastore's query documentation examples return their documented results",
        arguments: StoreKind.allCases,
        [false, true]
    )
    func documentedExamples(kind: StoreKind, indexed: Bool) async throws {
        for (dataset, documents) in Self.fixture.datasets.sorted(by: { $0.key < $1.key }) {
            try await withDatastore(kind) { store, _ in
                try await Self.load(documents, into: store)
                if indexed { try await Self.defineIndexes(store) }
                for query in Self.fixture.queries where query.dataset == dataset {
                    let sort = Self.sortFields(query.sort)
                    if query.needsTextIndex == true, !indexed {
                        let error = await #expect(throws: DatastoreError.self, "\(query.example)") {
                            try await store.find(selector: query.selector)
                        }
                        #expect(error?.code == .invalidQuery)
                        continue
                    }
                    let found = try await store.find(
                        selector: query.selector,
                        fields: query.fields,
                        sort: sort,
                        skip: query.skip ?? 0,
                        limit: query.limit
                    )
                    let ids = found.map(\.docID)
                    #expect((query.ordered == true ? ids : ids.sorted()) == query.ids, "\(query.example)")
                    if let body = query.body { #expect(found.first?.body == body, "\(query.example)") }
                    let plan = try await store.explain(selector: query.selector, sort: sort)
                    if indexed, let index = query.index {
                        #expect(plan.indexes.joined(separator: ", ") == index, "\(query.example): \(plan)")
                        #expect(!plan.isFullScan)
                    }
                    if indexed, let sortIndex = query.sortIndex {
                        #expect(plan.sortIndexes == [sortIndex], "\(query.example): \(plan)")
                    }
                    if !indexed { #expect(plan.isFullScan) }
                }
            }
        }
    }

    @Test("indexes catch up lazily after updates, deletes and conflicts", arguments: StoreKind.allCases)
    func lazyCatchUp(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await Self.load(Self.fixture.datasets["people"] ?? [], into: store)
            try await Self.defineIndexes(store)
            let cat: [String: JSONValue] = ["pet.species": .string("cat")]
            #expect(try await store.find(selector: cat).map(\.docID).sorted() == ["fred23", "mike12"])

            let mike12 = try await store.document(id: "mike12")
            var body = mike12.body
            body["pet"] = .object(["species": .string("dog")])
            _ = try await store.update(from: mike12, body: body)
            try await store.delete(from: try await store.document(id: "fred23"))
            _ = try await store.createDocument(
                id: "anna5",
                body: ["name": .string("anna"), "age": .number(5), "pet": .object(["species": .string("cat")])]
            )
            #expect(try await store.find(selector: cat).map(\.docID) == ["anna5"])
            let dogs = try await store.find(
                selector: ["pet.species": .string("dog")],
                sort: [SortField("age", descending: true)]
            )
            #expect(dogs.map(\.docID) == ["mike34", "mike12"])

            // A text index follows the same feed.
            let mike34 = try await store.document(id: "mike34")
            var comment = mike34.body
            comment["comment"] = .string("Mike plays chess")
            _ = try await store.update(from: mike34, body: comment)
            #expect(try await store.find(selector: ["$text": .object(["$search": .string("doctor")])]).isEmpty)
            #expect(
                try await store.find(selector: ["$text": .object(["$search": .string("chess")])]).map(\.docID) == [
                    "mike34"
                ]
            )

            // Deleting an index leaves queries answering by scan.
            try await store.deleteIndex(named: "basic")
            #expect(try await store.explain(selector: cat).isFullScan)
            #expect(try await store.find(selector: cat).map(\.docID) == ["anna5"])
            #expect(try await store.listIndexes().keys.sorted() == ["another_index", "basic_text_index"])
        }
    }

    @Test("index definitions are checked, repeatable and listed", arguments: [StoreKind.unencrypted])
    func definitions(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            #expect(try await store.isTextSearchEnabled())
            try await Self.defineIndexes(store)
            try await Self.defineIndexes(store)  // the same definitions again: nothing changes
            let listed = try await store.listIndexes()
            #expect(listed["basic"] == QueryIndex(name: "basic", kind: .json, fields: ["name", "age", "pet.species"]))
            #expect(listed["basic_text_index"]?.tokenizer == .porter)
            let refused: [(fields: [String], name: String, type: QueryIndex.Kind)] = [
                (["name"], "basic", .json),  // another definition under an existing name
                (["comment"], "second_text", .text),  // one text index per datastore
                (["name"], "1starts_with_digit", .json),
                (["name"], "has space", .json),
                ([], "empty", .json),
                (["a..b"], "bad_path", .json),
                (["a", "a"], "twice", .json),
                (["$where"], "operator", .json),
            ]
            for bad in refused {
                let error = await #expect(throws: DatastoreError.self, "\(bad.name)") {
                    try await store.ensureIndexed(fields: bad.fields, name: bad.name, type: bad.type)
                }
                #expect(error?.code == .invalidArgument)
            }
            let missing = await #expect(throws: DatastoreError.self) { try await store.deleteIndex(named: "nope") }
            #expect(missing?.code == .notFound)
        }
    }

    @Test("malformed $text and $regex are invalidQuery errors", arguments: [StoreKind.unencrypted])
    func malformedSearches(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await Self.load(Self.fixture.datasets["people"] ?? [], into: store)
            try await Self.defineIndexes(store)
            let selectors: [[String: JSONValue]] = [
                ["$text": .object(["$search": .string("\"unterminated")])],
                ["$text": .object(["$search": .string("AND OR")])],
                ["$text": .string("doctor")],
                [
                    "$or": .array([
                        .object(["$text": .object(["$search": .string("doctor")])]), .object(["age": .number(1)]),
                    ])
                ],
                [
                    "$and": .array([
                        .object(["$text": .object(["$search": .string("a")])]),
                        .object(["$text": .object(["$search": .string("b")])]),
                    ])
                ],
                ["name": .object(["$regex": .string("(")])],
                ["name": .object(["$regex": .string("(?=lookahead)")])],
            ]
            for selector in selectors {
                let error = await #expect(throws: DatastoreError.self, "\(selector)") {
                    try await store.find(selector: selector)
                }
                #expect(error?.code == .invalidQuery, "\(selector)")
            }
        }
    }

    @Test("indexed values and text are not readable at rest", arguments: [StoreKind.encrypted])
    func encryptedIndexes(kind: StoreKind) async throws {
        // withDatastore searches the encrypted datastore's folder for the canaries after the body runs.
        try await withDatastore(kind) { store, _ in
            _ = try await store.createDocument(id: Canary.docID, body: Canary.body)
            try await store.ensureIndexed(fields: [Canary.field], name: "canary")
            try await store.ensureIndexed(fields: [Canary.field], name: "canary_text", type: .text)
            let byValue = try await store.find(selector: [Canary.field: .string(Canary.value)])
            #expect(byValue.map(\.docID) == [Canary.docID])
            let byText = try await store.find(selector: ["$text": .object(["$search": .string("\"\(Canary.value)\"")])])
            #expect(byText.map(\.docID) == [Canary.docID])
        }
    }

    @Test("indexed and scanned answers agree on the operator fixture", arguments: StoreKind.allCases)
    func indexedAgreesWithScan(kind: StoreKind) async throws {
        try await withDatastore(kind) { store, _ in
            try await QueryTests.load(store)
            var scanned: [[String]] = []
            for query in QueryTests.fixture.queries {
                scanned.append(try await store.find(selector: query.selector).map(\.docID))
            }
            try await store.ensureIndexed(fields: ["name", "age", "pet"], name: "people")
            try await store.ensureIndexed(fields: ["address.city", "comments", "scores", "big", "_id"], name: "rest")
            for (query, expected) in zip(QueryTests.fixture.queries, scanned) {
                let found = try await store.find(selector: query.selector).map(\.docID)
                #expect(found == expected, "\(query.selector)")
                #expect(found.sorted() == query.ids, "\(query.selector)")
            }
            let sorted = try await store.find(
                selector: ["age": .object(["$gte": .number(12)])],
                sort: [SortField("age", descending: true), SortField("name")]
            )
            #expect(sorted.map(\.docID) == ["mike72", "john44", "fred34", "mike34", "fred12", "mike12"])
            let plan = try await store.explain(
                selector: ["age": .object(["$gte": .number(12)])],
                sort: [SortField("age", descending: true), SortField("name")]
            )
            #expect(plan.sortIndexes == ["people"] && plan.indexes == ["people"])
        }
    }
}
