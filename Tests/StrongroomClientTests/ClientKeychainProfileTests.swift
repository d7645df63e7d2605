// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing

@Suite struct ClientKeychainProfileTests {
    @Test("a configuration saved to the keychain by profile name loads back; the keychain file shows none of it")
    func keychainProfile() async throws {
        try await withTemporaryDirectory { directory in
            let url = directory.appending(path: "sdk.keychain")
            let keychain = Keychain(
                backend: try EncryptedFileBackend.create(at: url, passphrase: "pass phrase", parameters: .minimum)
            )
            let configuration = Client.Configuration(
                clientID: UUID(),
                clientName: "in-keychain",
                apiKeyID: "key-id-in-keychain",
                apiSecret: .init(copying: Array("api-secret-in-keychain".utf8)),
                keys: .generate(),
                apiURL: try #require(URL(string: "https://e3db.example.com"))
            )
            try configuration.save(profile: "work", to: keychain)
            try configuration.save(profile: "work", to: keychain)  // replaces, never duplicates

            let loaded = try Client.Configuration(loadProfile: "work", from: keychain)
            #expect(loaded.clientID == configuration.clientID && loaded.apiSecret == configuration.apiSecret)
            #expect(loaded.keys.signingKey.publicKey == configuration.keys.signingKey.publicKey)
            let missing = #expect(throws: ClientError.self) {
                _ = try Client.Configuration(loadProfile: "home", from: keychain)
            }
            #expect(missing?.code == .notFound)

            let findings = try PlaintextScan.scan(
                url,
                for: [
                    "api-secret-in-keychain", "key-id-in-keychain", configuration.keys.encryptionKey.base64URLEncoded,
                    configuration.keys.signingKey.base64URLEncoded, "e3db.example.com", "work",
                ]
            )
            #expect(findings.isEmpty, "\(findings)")

            keychain.lock()
            let locked = #expect(throws: ClientError.self) {
                _ = try Client.Configuration(loadProfile: "work", from: keychain)
            }
            #expect(locked?.code == .invalidConfiguration)
        }
    }
}
