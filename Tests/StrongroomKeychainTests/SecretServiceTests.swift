// Strongroom — SPDX-License-Identifier: Apache-2.0

import Crypto
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomSecretService
import StrongroomTesting
import Testing
import X509

/// Whether the tests run inside `Scripts/with-keyring.sh`.
let secretServiceAvailable = ProcessInfo.processInfo.environment["STRONGROOM_TEST_SECRET_SERVICE"] == "1"

/// The Secret Service backend against a real gnome-keyring-daemon: `Scripts/test.sh` runs the tests inside
/// `Scripts/with-keyring.sh`. Outside it they are skipped, except in CI, where a missing keyring fails.
@Suite(.enabled(if: secretServiceAvailable || ProcessInfo.processInfo.environment["CI"] != nil))
struct SecretServiceTests {
    /// A keychain on a store name of its own, emptied before and after.
    private func withStore(_ body: (Keychain) throws -> Void) throws {
        try #require(secretServiceAvailable, "run the tests through Scripts/with-keyring.sh (Scripts/test.sh does)")
        let keychain = Keychain(backend: SecretServiceBackend(store: "test-\(UUID().uuidString)"))
        try keychain.removeAll()
        defer { try? keychain.removeAll() }
        try body(keychain)
    }

    @Test("passwords, keys and certificates round-trip through gnome-keyring; its keyring file holds none of them")
    func roundTrip() throws {
        try withStore { keychain in
            var query = ItemQuery<GenericPassword>.credential(for: "alice", service: "ss.example.com")
            query.label = "Secret Service test"
            let key = Curve25519.Signing.PrivateKey()
            let (certificate, _) = try selfSigned()
            try keychain.store("ss-secret-value-42", query: query)
            try keychain.store(key, query: .key(for: "ss-signing"))
            try keychain.store(certificate, query: .certificate(for: "ss-cert"))

            #expect(try keychain.retrieve(query, as: String.self) == "ss-secret-value-42")
            let keyBack: Curve25519.Signing.PrivateKey? = try keychain.retrieve(.key(for: "ss-signing"))
            #expect(keyBack?.rawRepresentation == key.rawRepresentation)
            #expect(try keychain.retrieve(.certificate(for: "ss-cert"), as: Certificate.self) == certificate)
            #expect(try keychain.info(for: query)?.label == "Secret Service test")
            #expect(try keychain.items().count == 3)

            let duplicate = #expect(throws: KeychainError.self) { try keychain.store("again", query: query) }
            #expect(duplicate?.code == .duplicateItem)
            try keychain.update("ss-secret-value-43", query: query)
            #expect(try keychain.retrieve(query, as: String.self) == "ss-secret-value-43")
            #expect(try keychain.retrieve(.credential(for: "nobody"), as: String.self) == nil)
            #expect(throws: KeychainError(.unsupported, "")) {
                try keychain.store(
                    "x",
                    query: .credential(for: "p"),
                    accessPolicy: AccessPolicy(options: .userPresence)
                )
            }

            // Another store name sees nothing of this one (as separate Valets).
            #expect(try Keychain(backend: SecretServiceBackend(store: "other-\(UUID())")).items().isEmpty)
            #expect(try keychain.remove(query))
            #expect(try keychain.retrieve(query, as: String.self) == nil)

            if let directory = ProcessInfo.processInfo.environment["STRONGROOM_TEST_KEYRING_DIR"] {
                for file in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] {
                    try expectNoPlaintext(
                        in: URL(fileURLWithPath: directory).appending(path: file),
                        [Data("ss-secret-value-42".utf8), Data("ss-secret-value-43".utf8), key.rawRepresentation]
                    )
                }
            }
        }
    }

    @Test("passwords are standard items: secret-tool and Python's keyring read Strongroom's, and Strongroom theirs")
    func otherTools() async throws {
        try #require(secretServiceAvailable, "run the tests through Scripts/with-keyring.sh (Scripts/test.sh does)")
        let secretTool = URL(fileURLWithPath: "/usr/bin/secret-tool")
        try #require(FileManager.default.isExecutableFile(atPath: secretTool.path), "install libsecret-tools")
        try #require(PythonSDK.interpreter != nil, "\(PythonSDK.missingMessage)")
        let tag = UUID().uuidString.prefix(8).lowercased()
        let keychain = Keychain(backend: SecretServiceBackend(store: "interop-\(tag)"))
        defer { try? keychain.removeAll() }
        func tool(_ arguments: [String], input: String? = nil) async throws -> String {
            let outcome = try await ExternalProcess.run(secretTool, arguments: arguments, input: input)
            try #require(outcome.status == 0, "secret-tool \(arguments): \(outcome.output)")
            return outcome.output
        }
        func python(_ code: String) async throws -> String {
            let outcome = try await PythonSDK.run(["-c", "import keyring\n" + code])
            try #require(outcome.status == 0, "\(outcome.output)")
            return outcome.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }

        // Strongroom writes; the other tools read the password itself by the standard attributes.
        let service = "interop-\(tag).example"
        try keychain.store("from strongroom", query: .credential(for: "alice", service: service))
        let space = WebProtectionSpace.website("https://git-\(tag).example:8443/repo")
        try keychain.store("net secret", query: .credential(for: "bob", space: space))
        #expect(try await tool(["lookup", "service", service, "username", "alice"]) == "from strongroom")
        let server = "git-\(tag).example"
        let network = ["server", server, "user", "bob", "protocol", "https", "port", "8443", "object", "/repo"]
        #expect(try await tool(["lookup"] + network) == "net secret")
        #expect(try await python("print(keyring.get_password('\(service)', 'alice'))") == "from strongroom")
        // Strongroom's own description still comes back with it.
        #expect(try keychain.info(for: .credential(for: "alice", service: service))?.valueKind == "data")

        // They write; Strongroom reads (and never removes their items).
        let theirs = "theirs-\(tag).example"
        _ = try await tool(
            ["store", "--label", "from secret-tool", "service", theirs, "username", "carol"],
            input: "st pass"
        )
        _ = try await python("keyring.set_password('\(theirs)', 'dave', 'py pass')")
        #expect(try keychain.retrieve(.credential(for: "carol", service: theirs), as: String.self) == "st pass")
        #expect(try keychain.retrieve(.credential(for: "dave", service: theirs), as: String.self) == "py pass")
        #expect(try keychain.items().count == 2)  // only this store's own
        try keychain.removeAll()
        #expect(try keychain.items().isEmpty)
        // removeAll took this store's standard items too, and left the other tools' items alone.
        let gone = try await ExternalProcess.run(
            secretTool,
            arguments: ["lookup", "service", service, "username", "alice"]
        )
        #expect(gone.status != 0 && gone.output.isEmpty, "\(gone.output)")
        #expect(try await tool(["lookup", "service", theirs, "username", "carol"]) == "st pass")
        _ = try await tool(["clear", "service", theirs])
    }

    @Test("the keychain file's passphrase from the desktop keyring: a secret-tool item unlocks it; none falls through")
    func passphraseSource() async throws {
        try #require(secretServiceAvailable, "run the tests through Scripts/with-keyring.sh (Scripts/test.sh does)")
        let secretTool = URL(fileURLWithPath: "/usr/bin/secret-tool")
        let service = "strongroom-test-\(UUID().uuidString.prefix(8).lowercased())"
        let stored = try await ExternalProcess.run(
            secretTool,
            arguments: ["store", "--label", "Strongroom keychain", "service", service, "username", "keychain"],
            input: "from the desktop"
        )
        try #require(stored.status == 0, "\(stored.output)")
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "k/keychain")
            let keychain = try Keychain.opening(
                url,
                passphrase: [.secretService(service: service), .value("fallback")]
            )
            try keychain.store("v", query: .credential(for: "a"))
            let reopened = try Keychain.encryptedFile(at: url, passphrase: "from the desktop")
            #expect(try reopened.retrieve(.credential(for: "a"), as: String.self) == "v")
            // No such item: the next source is used.
            let other = folder.appending(path: "other")
            _ = try Keychain.opening(other, passphrase: [.secretService(service: service + "-none"), .value("fb")])
            _ = try Keychain.encryptedFile(at: other, passphrase: "fb")
        }
        _ = try await ExternalProcess.run(secretTool, arguments: ["clear", "service", service])
    }
}
