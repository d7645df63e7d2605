// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
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

/// SwiftSecurity's custom queries and key-as-credential storage.
@Suite struct KeychainQueryPortingTests {
    @Test("an empty SecItemQuery filled attribute by attribute names the same item as the factory; empty is refused")
    func emptyQuery() throws {
        let keychain = Keychain.inMemory()
        var query = SecItemQuery<GenericPassword>()
        query.service = "api.example.com"
        query.account = "alice"
        query.label = "Example"
        try keychain.store("s3cret", query: query)
        let viaFactory: String? = try keychain.retrieve(.credential(for: "alice", service: "api.example.com"))
        #expect(viaFactory == "s3cret")
        let empty = #expect(throws: KeychainError.self) {
            try keychain.store("x", query: SecItemQuery<GenericPassword>())
        }
        #expect(empty?.code == .invalidParameters)
        var internet = SecItemQuery<InternetPassword>()
        internet.server = "git.example.com"
        internet.account = "bob"
        internet.protocol = .https
        try keychain.store("pa55", query: internet)
        let found: String? = try keychain.retrieve(.credential(for: "bob", space: .website("https://git.example.com")))
        #expect(found == "pa55")
    }

    @Test("SymmetricKey and Curve25519 keys store as credentials, as in SwiftSecurity, and come back equal")
    func keysAsCredentials() throws {
        let keychain = Keychain.inMemory()
        let symmetric = SymmetricKey(size: .bits256)
        try keychain.store(symmetric, query: .credential(for: "chat"))
        let restored = try #require(try keychain.retrieve(.credential(for: "chat"), as: SymmetricKey.self))
        #expect(restored == symmetric)
        let signing = Curve25519.Signing.PrivateKey()
        try keychain.store(signing, query: .credential(for: "signer"))
        let back = try keychain.retrieve(.credential(for: "signer"), as: Curve25519.Signing.PrivateKey.self)
        #expect(back?.rawRepresentation == signing.rawRepresentation)
        let agreement = Curve25519.KeyAgreement.PrivateKey()
        try keychain.store(agreement, query: .credential(for: "agreement"))
        let agreed = try keychain.retrieve(.credential(for: "agreement"), as: Curve25519.KeyAgreement.PrivateKey.self)
        #expect(agreed?.publicKey.rawRepresentation == agreement.publicKey.rawRepresentation)
        // The same key type still works as a key item.
        try keychain.store(symmetric, query: .key(for: "chat-key"))
        #expect(try keychain.retrieve(.key(for: "chat-key"), as: SymmetricKey.self) == symmetric)
    }
}

/// `Keychain.default`'s parts: the passphrase sources and the file they open.
@Suite struct KeychainDefaultTests {
    @Test("opening: the first source with a passphrase wins; a passphrase file others can read is refused; none fails")
    func passphraseSources() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appending(path: "nested/keychain")
            let unset = "STRONGROOM_TEST_UNSET_\(UUID().uuidString.prefix(8))"
            let none = #expect(throws: KeychainError.self) {
                _ = try Keychain.opening(url, passphrase: [.environment(unset)])
            }
            #expect(none?.code == .invalidParameters)

            let file = directory.appending(path: "pass")
            try Data("file pass\nignored\n".utf8).write(to: file)
            chmod(file.path, 0o644)
            let exposed = #expect(throws: KeychainError.self) {
                _ = try Keychain.opening(url, passphrase: [.file(file)])
            }
            #expect(exposed?.code == .invalidParameters)
            chmod(file.path, 0o600)
            let created = try Keychain.opening(url, passphrase: [.environment(unset), .file(file), .value("later")])
            try created.store("kept", query: .credential(for: "a"))
            // The folder was made owner-only; the same passphrase given as a value opens it again.
            let folder = try FileManager.default.attributesOfItem(atPath: url.deletingLastPathComponent().path)
            #expect((folder[.posixPermissions] as? Int) == 0o700)
            let reopened = try Keychain.opening(url, passphrase: [.value("file pass")])
            #expect(try reopened.retrieve(.credential(for: "a"), as: String.self) == "kept")
            let wrong = #expect(throws: KeychainError.self) {
                _ = try Keychain.opening(url, passphrase: [.value("other")])
            }
            #expect(wrong?.code == .wrongPassphrase)
        }
    }
}

/// The `@Credential` property wrapper.
@Suite struct CredentialWrapperTests {
    struct Settings {
        @Credential("openai", service: "api.openai.com", keychain: CredentialWrapperTests.keychain) var apiKey: String?
        @Credential("counter", keychain: CredentialWrapperTests.keychain) var raw: Data?
    }
    static let keychain = Keychain.inMemory()

    @Test("set stores (replacing), get reads, nil removes; the projected value throws what the property hides")
    func roundTrip() throws {
        let settings = Settings()
        #expect(settings.apiKey == nil)
        settings.apiKey = "sk-1"
        settings.apiKey = "sk-2"
        #expect(settings.apiKey == "sk-2")
        let stored: String? = try Self.keychain.retrieve(.credential(for: "openai", service: "api.openai.com"))
        #expect(stored == "sk-2")
        settings.apiKey = nil
        #expect(try Self.keychain.info(for: .credential(for: "openai", service: "api.openai.com")) == nil)

        // Bytes that are not UTF-8 read as nil through the property, and as typeMismatch through $.
        settings.raw = Data([0xFF, 0xFE])
        let text = Credential<String>("counter", keychain: Self.keychain)
        #expect(text.wrappedValue == nil)
        let mismatch = #expect(throws: KeychainError.self) { try text.load() }
        #expect(mismatch?.code == .typeMismatch)
        try settings.$raw.save(nil)
        #expect(try settings.$raw.load() == nil)
    }
}
