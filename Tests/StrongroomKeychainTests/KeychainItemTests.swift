// Strongroom — SPDX-License-Identifier: Apache-2.0
import Crypto
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing
import X509

@Suite struct KeychainItemTests {
    @Test(
        "passwords, keys, certificates and identities round-trip; the file holds none of them",
        arguments: BackendKind.allCases
    )
    func roundTrips(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, file in
            // Given
            var password = ItemQuery<GenericPassword>.credential(for: "alice", service: "api.example.com")
            password.label = "Example API token"
            password.comment = "rotated monthly"
            let web = ItemQuery<InternetPassword>.credential(
                for: "bob",
                space: WebProtectionSpace(host: "git.example.com", port: 8443, protocol: .https, path: "/repo")
            )
            let signing = Curve25519.Signing.PrivateKey()
            let agreement = Curve25519.KeyAgreement.PrivateKey()
            let p256 = P256.Signing.PrivateKey()
            let p384 = P384.KeyAgreement.PrivateKey()
            let p521 = P521.Signing.PrivateKey()
            let symmetric = SymmetricKey(size: .bits256)
            let edKey = SigningPrivateKey()
            let accessKey = AccessKey()
            let (certificate, identityKey) = try selfSigned()
            let identity = try DigitalIdentity(certificate: certificate, privateKey: .init(identityKey))

            // When
            try keychain.store("hunter2-token-value", query: password)
            try keychain.store(Data("web-secret-bytes".utf8), query: web)
            try keychain.store(signing, query: .key(for: "signing"))
            try keychain.store(agreement, query: .key(for: "agreement"))
            try keychain.store(p256, query: .key(for: "p256"))
            try keychain.store(p384, query: .key(for: "p384"))
            try keychain.store(p521, query: .key(for: "p521"))
            try keychain.store(symmetric, query: .key(for: "symmetric"))
            try keychain.store(edKey, query: .key(for: "strongroom-ed25519"))
            try keychain.store(accessKey, query: .key(for: "access"))
            try keychain.store(certificate, query: .certificate(for: "server"))
            try keychain.store(identity, query: .identity(for: "client-tls"))

            // Then
            #expect(try keychain.retrieve(password, as: String.self) == "hunter2-token-value")
            #expect(try keychain.retrieve(web, as: Data.self) == Data("web-secret-bytes".utf8))
            let signingBack: Curve25519.Signing.PrivateKey? = try keychain.retrieve(.key(for: "signing"))
            #expect(signingBack?.rawRepresentation == signing.rawRepresentation)
            let agreementBack: Curve25519.KeyAgreement.PrivateKey? = try keychain.retrieve(.key(for: "agreement"))
            #expect(agreementBack?.rawRepresentation == agreement.rawRepresentation)
            let p256Back: P256.Signing.PrivateKey? = try keychain.retrieve(.key(for: "p256"))
            #expect(p256Back?.rawRepresentation == p256.rawRepresentation)
            let p384Back: P384.KeyAgreement.PrivateKey? = try keychain.retrieve(.key(for: "p384"))
            #expect(p384Back?.rawRepresentation == p384.rawRepresentation)
            let p521Back: P521.Signing.PrivateKey? = try keychain.retrieve(.key(for: "p521"))
            #expect(p521Back?.rawRepresentation == p521.rawRepresentation)
            let symmetricBack: SymmetricKey? = try keychain.retrieve(.key(for: "symmetric"))
            #expect(symmetricBack == symmetric)
            let edBack: SigningPrivateKey? = try keychain.retrieve(.key(for: "strongroom-ed25519"))
            #expect(edBack?.publicKey == edKey.publicKey)
            let accessBack: AccessKey? = try keychain.retrieve(.key(for: "access"))
            #expect(accessBack == accessKey)
            let certificateBack: Certificate? = try keychain.retrieve(.certificate(for: "server"))
            #expect(certificateBack == certificate)
            #expect(try keychain.retrieve(.identity(for: "client-tls")) == identity)

            let info = try #require(try keychain.info(for: password))
            #expect(info.label == "Example API token" && info.comment == "rotated monthly")
            #expect(info.accessPolicy == "whenUnlocked" && info.valueKind == "data")
            #expect(try keychain.items().count == 12)

            try expectNoPlaintext(
                in: file,
                [
                    Data("hunter2-token-value".utf8), Data("web-secret-bytes".utf8), Data("api.example.com".utf8),
                    Data("alice".utf8), Data("git.example.com".utf8), Data("Example API token".utf8),
                    signing.rawRepresentation, agreement.rawRepresentation, p256.rawRepresentation,
                    p384.rawRepresentation, p521.rawRepresentation, symmetric.withUnsafeBytes { Data($0) },
                    edKey.rawRepresentation.withUnsafeBytes { Data($0) },
                    accessKey.rawRepresentation.withUnsafeBytes { Data($0) },
                    identityKey.rawRepresentation, Data(try certificate.keychainCertificateDER()),
                    Data(Data(try certificate.keychainCertificateDER()).base64EncodedString().utf8),
                ]
            )
        }
    }

    @Test(
        "missing is nil; duplicates, wrong types and Apple-only options are typed errors",
        arguments: BackendKind.allCases
    )
    func errors(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, file in
            let query = ItemQuery<GenericPassword>.credential(for: "carol")
            #expect(try keychain.retrieve(query, as: String.self) == nil)
            #expect(try keychain.info(for: query) == nil)
            #expect(try keychain.remove(query) == false)

            try keychain.store("first-secret", query: query)
            let duplicate = #expect(throws: KeychainError.self) { try keychain.store("second", query: query) }
            #expect(duplicate?.code == .duplicateItem)
            #expect(try keychain.retrieve(query, as: String.self) == "first-secret")

            let created = try #require(try keychain.info(for: query)).creationDate
            try keychain.update("updated-secret", query: query)
            #expect(try keychain.retrieve(query, as: String.self) == "updated-secret")
            #expect(try keychain.info(for: query)?.creationDate == created)

            try keychain.store(P256.Signing.PrivateKey(), query: .key(for: "k"))
            let mismatch = #expect(throws: KeychainError.self) {
                _ = try keychain.retrieve(.key(for: "k"), as: Curve25519.Signing.PrivateKey.self)
            }
            #expect(mismatch?.code == .typeMismatch)

            var synced = query
            synced.synchronizable = true
            #expect(throws: KeychainError(.unsupported, "")) { try keychain.store("x", query: synced) }
            var grouped = query
            grouped.accessGroup = "TEAMID.group"
            #expect(throws: KeychainError(.unsupported, "")) { _ = try keychain.retrieve(grouped, as: String.self) }
            #expect(throws: KeychainError(.unsupported, "")) {
                try keychain.store("x", query: .credential(for: "d"), accessPolicy: AccessPolicy(options: .biometryAny))
            }
            #expect(throws: KeychainError(.invalidParameters, "")) {
                try keychain.store("x", query: .credential(for: ""))
            }

            #expect(try keychain.remove(query))
            try keychain.removeAll()
            #expect(try keychain.items().isEmpty)
            try expectNoPlaintext(
                in: file,
                [Data("first-secret".utf8), Data("updated-secret".utf8), Data("carol".utf8)]
            )
        }
    }

    @Test(
        "whenUnlocked items need the unlocked store, afterFirstUnlock ones survive lock(); userPresence asks again",
        arguments: BackendKind.allCases
    )
    func accessPolicies(kind: BackendKind) async throws {
        try await withKeychain(kind) { keychain, _ in
            let everyday = ItemQuery<GenericPassword>.credential(for: "everyday")
            let background = ItemQuery<GenericPassword>.credential(for: "background")
            var guarded = ItemQuery<GenericPassword>.credential(for: "guarded")
            try keychain.store("a", query: everyday)
            try keychain.store("b", query: background, accessPolicy: AccessPolicy(.afterFirstUnlock))
            let missing = #expect(throws: KeychainError.self) {
                try keychain.store("c", query: guarded, accessPolicy: AccessPolicy(options: .userPresence))
            }
            #expect(missing?.code == .authenticationRequired)
            guarded.authenticationContext = .passphrase(testPassphrase)
            try keychain.store("c", query: guarded, accessPolicy: AccessPolicy(options: .userPresence))

            keychain.lock()
            #expect(throws: KeychainError(.locked, "")) { _ = try keychain.retrieve(everyday, as: String.self) }
            #expect(throws: KeychainError(.locked, "")) { try keychain.store("x", query: .credential(for: "new")) }
            #expect(try keychain.retrieve(background, as: String.self) == "b")
            #expect(try keychain.items().count == 3)  // labels stay listable after the first unlock

            try keychain.unlock(passphrase: testPassphrase)
            #expect(try keychain.retrieve(everyday, as: String.self) == "a")
            var noAuthentication = guarded
            noAuthentication.authenticationContext = nil
            #expect(throws: KeychainError(.authenticationRequired, "")) {
                _ = try keychain.retrieve(noAuthentication, as: String.self)
            }
            var wrong = guarded
            wrong.authenticationContext = .passphrase("not it")
            #expect(throws: KeychainError(.wrongPassphrase, "")) { _ = try keychain.retrieve(wrong, as: String.self) }
            #expect(try keychain.retrieve(guarded, as: String.self) == "c")
            #expect(throws: KeychainError(.wrongPassphrase, "")) { try keychain.unlock(passphrase: "wrong") }
        }
    }
}

/// A self-signed P-256 certificate and its key (TestPKI's root).
func selfSigned() throws -> (Certificate, P256.Signing.PrivateKey) {
    let root = try TestPKI(referenceTime: Date(), rootName: "keychain-test").root
    return (root.certificate, root.key)
}
