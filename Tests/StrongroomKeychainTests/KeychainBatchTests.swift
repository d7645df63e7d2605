// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomKeychain
import Testing

/// `store(contentsOf:)` writes many items at once (one durable write in the encrypted file, all or none), and the
/// encrypted file's read path serves unchanged files from memory while it still sees every change made through
/// another handle (another process).
@Suite struct KeychainBatchTests {
    static func entries(_ count: Int, prefix: String) -> [(value: String, query: ItemQuery<GenericPassword>)] {
        (0..<count).map { ("\(prefix)-secret-\($0)", .credential(for: "account-\($0)", service: prefix)) }
    }

    @Test("a batch stores every item; none is in the file in the clear", arguments: BackendKind.allCases)
    func storesAll(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, file in
            try keychain.store(contentsOf: Self.entries(500, prefix: "batch"))
            #expect(try keychain.items().count == 500)
            for index in [0, 1, 250, 499] {
                let query = ItemQuery<GenericPassword>.credential(for: "account-\(index)", service: "batch")
                #expect(try keychain.retrieve(query, as: String.self) == "batch-secret-\(index)")
            }
            try expectNoPlaintext(in: file, [Data("batch-secret-1".utf8), Data("account-250".utf8)])
        }
    }

    @Test("the encrypted file stores a batch all or nothing: one existing identity, nothing new lands")
    func allOrNothing() async throws {
        try await withKeychain(.file) { keychain, file in
            let existing = ItemQuery<GenericPassword>.credential(for: "account-7", service: "batch")
            try keychain.store("already-here", query: existing)
            let before = try Data(contentsOf: try #require(file))
            let error = #expect(throws: KeychainError.self) {
                try keychain.store(contentsOf: Self.entries(20, prefix: "batch"))
            }
            #expect(error?.code == .duplicateItem)
            #expect(try Data(contentsOf: try #require(file)) == before)
            #expect(try keychain.items().count == 1)
            #expect(try keychain.retrieve(existing, as: String.self) == "already-here")
            // The same identity twice in one batch is a duplicate too, and again nothing lands.
            let twice = [
                ("one", ItemQuery<GenericPassword>.credential(for: "dup", service: "batch")),
                ("two", ItemQuery<GenericPassword>.credential(for: "dup", service: "batch")),
            ]
            #expect(throws: KeychainError.self) { try keychain.store(contentsOf: twice) }
            #expect(try keychain.items().count == 1)
            // replacing: the batch upserts, keeping the existing item's creation date.
            let created = try #require(try keychain.info(for: existing)).creationDate
            try keychain.store(contentsOf: Self.entries(20, prefix: "batch"), replacing: true)
            #expect(try keychain.items().count == 20)
            #expect(try keychain.retrieve(existing, as: String.self) == "batch-secret-7")
            #expect(try #require(try keychain.info(for: existing)).creationDate == created)
        }
    }

    @Test("a batch over the limit is refused before anything is sealed", arguments: BackendKind.allCases)
    func overLimit(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, _ in
            let query = ItemQuery<GenericPassword>.credential(for: "same", service: "limit")
            let entries: [(value: String, query: ItemQuery<GenericPassword>)] = Array(
                repeating: ("x", query),
                count: KeychainStoreOperation.batchLimit + 1
            )
            let error = #expect(throws: KeychainError.self) { try keychain.store(contentsOf: entries) }
            #expect(error?.code == .invalidParameters)
            let items = try keychain.items()
            #expect(items.isEmpty)
        }
    }

    @Test("reads from memory still see every change made through another handle on the same file")
    func otherHandleChanges() async throws {
        try await withKeychain(.file) { first, file in
            let url = try #require(file)
            let second = Keychain(backend: try EncryptedFileBackend.open(at: url, passphrase: testPassphrase))
            let query = ItemQuery<GenericPassword>.credential(for: "shared", service: "handles")
            #expect(try second.retrieve(query, as: String.self) == nil)
            try first.store("version-one", query: query)
            #expect(try second.retrieve(query, as: String.self) == "version-one")
            #expect(try second.retrieve(query, as: String.self) == "version-one")  // now from memory
            try first.update("version-two", query: query)
            #expect(try second.retrieve(query, as: String.self) == "version-two")
            #expect(try second.info(for: query)?.modificationDate == first.info(for: query)?.modificationDate)
            try second.store(contentsOf: Self.entries(3, prefix: "other"))
            #expect(try first.items().count == 4)
            #expect(try first.remove(query))
            #expect(try second.retrieve(query, as: String.self) == nil)
            #expect(try second.items().count == 3)
        }
    }
}
