// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomKeychain
import Testing

/// `store(_:query:replacing: true)` adds or replaces in one step under one lock, and `perform` runs keychain calls
/// from async code off the cooperative pool.
@Suite struct KeychainUpsertTests {
    @Test(
        "replacing: a new item is added; an existing one is replaced with its creation date kept",
        arguments: BackendKind.allCases
    )
    func upsert(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, file in
            let query = ItemQuery<GenericPassword>.credential(for: "deploy", service: "registry.example.com")
            try keychain.store("first-secret-value", query: query, replacing: true)
            let created = try #require(try keychain.info(for: query)).creationDate
            try keychain.store("second-secret-value", query: query, replacing: true)
            #expect(try keychain.retrieve(query, as: String.self) == "second-secret-value")
            #expect(try #require(try keychain.info(for: query)).creationDate == created)
            #expect(try keychain.items().count == 1)
            // Without replacing, an existing item is still a duplicate.
            let error = #expect(throws: KeychainError.self) { try keychain.store("third", query: query) }
            #expect(error?.code == .duplicateItem)
            try expectNoPlaintext(in: file, [Data("first-secret-value".utf8), Data("second-secret-value".utf8)])
        }
    }

    @Test(
        "perform: concurrent upserts from many tasks all land, none as duplicateItem",
        arguments: BackendKind.allCases
    )
    func concurrentPerform(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<16 {
                    group.addTask {
                        try await keychain.perform { keychain throws(KeychainError) in
                            let query = ItemQuery<GenericPassword>.credential(for: "shared", service: "race")
                            try keychain.store("value-\(index)", query: query, replacing: true)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let value = try await keychain.perform { keychain throws(KeychainError) in
                try keychain.retrieve(.credential(for: "shared", service: "race"), as: String.self)
            }
            #expect(value?.hasPrefix("value-") == true)
        }
    }
}
