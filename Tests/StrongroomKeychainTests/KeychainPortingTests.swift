// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing

/// SwiftSecurity calls a porting user makes: website spaces, data and attributes in one call, `removeAll` with the
/// sync flag, and descriptions that never show a secret.
@Suite struct KeychainPortingTests {
    @Test("a website space from a URL: scheme, host, port and path; two ports of one host are two items")
    func websiteSpaces() throws {
        let space = WebProtectionSpace.website("https://Example.com:8443/api/v1")
        #expect(space == WebProtectionSpace(host: "example.com", port: 8443, protocol: .https, path: "/api/v1"))
        #expect(WebProtectionSpace.website("http://example.com").protocol == .http)
        #expect(WebProtectionSpace.website("example.com") == WebProtectionSpace(host: "example.com"))

        let keychain = Keychain.inMemory()
        try keychain.store("default port", query: .credential(for: "alice", space: .website("https://example.com")))
        try keychain.store(
            "other port",
            query: .credential(for: "alice", space: .website("https://example.com:8443"))
        )
        let first: String? = try keychain.retrieve(.credential(for: "alice", space: .website("https://example.com")))
        let second: String? = try keychain.retrieve(
            .credential(for: "alice", space: .website("https://example.com:8443"))
        )
        #expect(first == "default port" && second == "other port")
        #expect(try keychain.items().count == 2)
    }

    @Test("data and attributes in one call; only what was asked for; nil for a missing item; none asked is an error")
    func dataAndAttributes() throws {
        let keychain = Keychain.inMemory()
        var query = ItemQuery<GenericPassword>.credential(for: "OpenAI", service: "api")
        query.label = "OpenAI key"
        try keychain.store("sk-123", query: query)
        let both = try #require(try keychain.retrieve([.data, .attributes], query: query))
        #expect(both.data.map { String(decoding: $0.withUnsafeBytes { Data($0) }, as: UTF8.self) } == "sk-123")
        #expect(both.info?.label == "OpenAI key")
        let onlyInfo = try #require(try keychain.retrieve([.attributes], query: query))
        #expect(onlyInfo.data == nil && onlyInfo.info?.label == "OpenAI key")
        let onlyData = try #require(try keychain.retrieve([.data], query: query))
        #expect(onlyData.data != nil && onlyData.info == nil)
        #expect(try keychain.retrieve([.data, .attributes], query: .credential(for: "missing")) == nil)
        let none = #expect(throws: KeychainError.self) { try keychain.retrieve([], query: query) }
        #expect(none?.code == .invalidParameters)
    }

    @Test("removeAll(includingSynchronizableCredentials:): false removes everything; true is unsupported, nothing lost")
    func removeAllSynchronizable() throws {
        let keychain = Keychain.inMemory()
        try keychain.store("a", query: .credential(for: "a"))
        let refused = #expect(throws: KeychainError.self) {
            try keychain.removeAll(includingSynchronizableCredentials: true)
        }
        #expect(refused?.code == .unsupported)
        #expect(try keychain.items().count == 1)
        try keychain.removeAll(includingSynchronizableCredentials: false)
        #expect(try keychain.items().isEmpty)
    }

    @Test("debug descriptions name the backend and the query's identity, never a secret or passphrase")
    func debugDescriptions() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appending(path: "k.keychain")
            let keychain = try Keychain.encryptedFile(
                at: url,
                passphrase: "correct horse",
                parameters: .minimum
            )
            try keychain.store("super-secret-value", query: .credential(for: "alice", service: "svc"))
            let text = keychain.debugDescription + ItemQuery<GenericPassword>.credential(for: "alice").debugDescription
            #expect(text.contains(url.path) && text.contains("alice"))
            #expect(!text.contains("super-secret-value") && !text.contains("correct horse"))
            #expect(Keychain.inMemory().debugDescription.contains("InMemoryBackend"))
        }
    }
}
