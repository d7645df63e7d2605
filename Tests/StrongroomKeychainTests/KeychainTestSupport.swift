// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomKeychain
import StrongroomTesting
import Testing

/// The backends every behavioural test runs on.
enum BackendKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case file, memory

    var testDescription: String { rawValue }
}

/// Fast KDF parameters for tests (the floor Strongroom accepts).
let testParameters = Argon2id.Parameters.minimum
let testPassphrase = "correct horse battery staple"

/// A fresh unlocked keychain of `kind` in a temporary directory; `body` also gets the file (nil in memory).
func withKeychain<R>(
    _ kind: BackendKind,
    _ body: (Keychain, URL?) async throws -> R
) async throws -> R {
    try await withTemporaryDirectory { directory in
        switch kind {
        case .memory:
            let keychain = Keychain.inMemory(passphrase: testPassphrase)
            try keychain.unlock(passphrase: testPassphrase)
            return try await body(keychain, nil)
        case .file:
            let url = directory.appending(path: "login.keychain")
            let backend = try EncryptedFileBackend.create(
                at: url,
                passphrase: testPassphrase,
                parameters: testParameters
            )
            return try await body(Keychain(backend: backend), url)
        }
    }
}

/// Fails when any of `needles` occurs in the file's bytes (as UTF-8 text or raw bytes).
func expectNoPlaintext(in file: URL?, _ needles: [Data], sourceLocation: SourceLocation = #_sourceLocation) throws {
    guard let file else { return }
    let findings = try PlaintextScan.scan(file, for: needles)
    #expect(findings.isEmpty, "plaintext found in the keychain file: \(findings)", sourceLocation: sourceLocation)
}
