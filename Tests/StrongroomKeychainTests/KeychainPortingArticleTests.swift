// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomKeychain
import StrongroomSecretService
import StrongroomTesting
import Testing

/// Every snippet of the SwiftSecurity porting article (`Documentation.docc/PortingFromSwiftSecurity.md`) runs here;
/// a last test checks the article quotes these blocks verbatim.
@Suite struct KeychainPortingArticleTests {
    @Test("every snippet of the SwiftSecurity porting article runs")
    func snippetsRun() async throws {
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "app/keychain")
            // porting: open
            let keychain = try Keychain.opening(
                url,
                passphrase: [.environment("MYAPP_KEYCHAIN_PASSPHRASE"), .value("typed in the app's own UI")]
            )
            // end porting
            let defaultSources = Keychain.defaultPassphraseSources
            #expect(defaultSources.count >= 2)

            // porting: website
            let space = WebProtectionSpace.website("https://example.com:8443")
            try keychain.store("pa55", query: .credential(for: "alice", space: space))
            let password: String? = try keychain.retrieve(.credential(for: "alice", space: space))
            // end porting
            #expect(password == "pa55")

            // porting: data-and-attributes
            var openAI = SecItemQuery<GenericPassword>.credential(for: "OpenAI")
            openAI.label = "OpenAI key"
            try keychain.store("sk-123", query: openAI)
            if let result = try keychain.retrieve([.data, .attributes], query: openAI) {
                print(result.info?.label ?? "", result.data?.count ?? 0)  // OpenAI key 6
            }
            // end porting

            // porting: custom-query
            var custom = SecItemQuery<GenericPassword>()
            custom.service = "api.example.com"
            custom.account = "deploy-bot"
            try keychain.store("token", query: custom)
            // end porting
            #expect(try keychain.retrieve(custom, as: String.self) == "token")

            // porting: symmetric-key
            try keychain.store(SymmetricKey(size: .bits256), query: .credential(for: "chat"))
            let chatKey: SymmetricKey? = try keychain.retrieve(.credential(for: "chat"))
            // end porting
            #expect(chatKey?.bitCount == 256)

            // porting: credential-wrapper
            @Credential("openai", service: "api.openai.com", keychain: keychain) var apiKey: String?
            apiKey = "sk-456"  // stored; nil removes it
            try $apiKey.save("sk-789")  // the same, with the error when the keychain fails
            // end porting
            #expect(try $apiKey.load() == "sk-789")

            // porting: debug
            debugPrint(keychain)  // the backend and its file, never a secret or the passphrase
            debugPrint(custom)  // the item's class and identity
            // end porting

            // porting: remove-all
            try keychain.removeAll(includingSynchronizableCredentials: false)  // true: .unsupported, nothing removed
            // end porting
            #expect(try keychain.items().isEmpty)
        }
    }

    @Test(
        "the desktop-keyring snippets run against the real gnome-keyring",
        .enabled(if: ProcessInfo.processInfo.environment["STRONGROOM_TEST_SECRET_SERVICE"] == "1")
    )
    func desktopSnippetsRun() async throws {
        let item = ["service", "strongroom-porting", "username", "keychain"]
        let secretTool = URL(fileURLWithPath: "/usr/bin/secret-tool")
        _ = try await ExternalProcess.run(secretTool, arguments: ["store", "--label", "porting"] + item, input: "p")
        try await withTemporaryDirectory { folder in
            let url = folder.appending(path: "keychain")
            // porting: secret-service-passphrase
            let keychain = try Keychain.opening(
                url,
                passphrase: [.secretService(service: "strongroom-porting")] + Keychain.defaultPassphraseSources
            )
            // end porting
            _ = keychain
            _ = try Keychain.encryptedFile(at: url, passphrase: "p")

            // porting: secret-service
            let desktop = Keychain(backend: SecretServiceBackend(store: "myapp"))
            try desktop.store("pa55", query: .credential(for: "alice", service: "api.example.com"))
            // `secret-tool lookup service api.example.com username alice` prints pa55
            // end porting
            let lookup = try await ExternalProcess.run(
                secretTool,
                arguments: ["lookup", "service", "api.example.com", "username", "alice"]
            )
            #expect(lookup.output == "pa55")
            try desktop.removeAll()
        }
        _ = try await ExternalProcess.run(secretTool, arguments: ["clear"] + item)
    }

    @Test("the article quotes each tested snippet verbatim, and every article snippet is tested")
    func articleMatchesTests() throws {
        let (quoted, tested) = try ArticleSnippets.compare(
            article: "Sources/StrongroomKeychain/Documentation.docc/PortingFromSwiftSecurity.md",
            testFile: #filePath
        )
        #expect(tested.count >= 10)
        #expect(Set(quoted.keys) == Set(tested.keys))
        for (name, code) in tested { #expect(quoted[name] == code, "snippet \(name)") }
    }
}
