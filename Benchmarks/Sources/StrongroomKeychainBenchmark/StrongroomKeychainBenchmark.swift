// Strongroom — SPDX-License-Identifier: Apache-2.0
// Keychain benchmark (not a test), run by Scripts/bench-keychain.sh inside a private keyring session:
// unlock time per Argon2id preset beside the bare Argon2id derivation, and item store/retrieve rates for the
// encrypted file, the Secret Service (gnome-keyring) and memory, beside one raw XChaCha20-Poly1305 seal.
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomKeychain
import StrongroomSecretService

@main
enum StrongroomKeychainBenchmark {
    static func main() throws {
        let items = CommandLine.arguments.count > 1 ? Int(CommandLine.arguments[1]) ?? 200 : 200
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appending(path: "keychain-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let clock = ContinuousClock()

        print("Unlock (open + Argon2id + unwrap + subkeys) per preset, beside Argon2id alone, same run")
        print("preset                          unlock ms     Argon2id ms    overhead")
        for (name, parameters) in [
            ("interactive (64 MiB, t=2)", Argon2id.Parameters.interactive),
            ("moderate (256 MiB, t=3)", .moderate),
            ("sensitive (1 GiB, t=4)", .sensitive),
        ] {
            let url = work.appending(path: "\(name.prefix(5)).keychain")
            _ = try EncryptedFileBackend.create(at: url, passphrase: "bench", parameters: parameters)
            let unlock = try clock.measure { _ = try EncryptedFileBackend.open(at: url, passphrase: "bench") }
            let salt = SecureRandom.data(count: Argon2id.saltByteCount)
            let bare = try clock.measure {
                _ = try Argon2id.deriveKey(fromPassword: "bench", salt: salt, parameters: parameters)
            }
            print(
                name.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%10.0f     %10.0f      %+6.1f%%",
                        unlock.ms,
                        bare.ms,
                        (unlock.ms / bare.ms - 1) * 100
                    )
            )
        }

        // Anchor: sealing one 32-byte secret with the same AEAD and nothing else.
        let key = SecureRandom.bytes(count: 32)
        let secret = SecureBytes(copying: Array("a 32-byte secret for the bench!!".utf8))
        let seals = 20_000
        let raw = try clock.measure {
            for _ in 0..<seals { _ = try XChaCha20Poly1305.seal(secret, key: key, associatedData: Data("aad".utf8)) }
        }
        let rawRate = Double(seals) / raw.seconds

        print("")
        print(
            "Items after unlock: \(items) generic passwords of 32 bytes (ops/s; anchor: raw XChaCha20-Poly1305 seal \(String(format: "%.0f", rawRate))/s)"
        )
        print(
            "backend                         store/s     retrieve/s   store vs raw seal   batch store/s (10,000 items; Secret Service: as many as above)"
        )
        let file = work.appending(path: "items.keychain")
        var backends: [(String, Keychain)] = [
            (
                "encrypted file (fsync)",
                Keychain(backend: try EncryptedFileBackend.create(at: file, passphrase: "bench", parameters: .minimum))
            ),
            ("in memory", Keychain.inMemory()),
        ]
        if SecretServiceBackend.sessionBusAvailable {
            backends.insert(
                ("Secret Service (gnome-keyring)", Keychain(backend: SecretServiceBackend(store: "bench-\(UUID())"))),
                at: 1
            )
        } else {
            print("(no session bus: run through Scripts/bench-keychain.sh for the Secret Service row)")
        }
        var summary = ""
        for (name, keychain) in backends {
            let store = try clock.measure {
                for index in 0..<items {
                    try keychain.store(secret, query: .credential(for: "account-\(index)", service: "bench"))
                }
            }
            // Every item, in passes (one for the Secret Service, whose calls are slow; 50 elsewhere).
            let queries = (0..<items).map {
                ItemQuery<GenericPassword>.credential(for: "account-\($0)", service: "bench")
            }
            let passes = name.hasPrefix("Secret Service") ? 1 : 50
            let retrieve = try clock.measure {
                for _ in 0..<passes {
                    for query in queries { _ = try keychain.retrieve(query, as: SecureBytes.self) }
                }
            }
            try keychain.removeAll()
            let batchCount = name.hasPrefix("Secret Service") ? items : 10_000  // gnome-keyring: one D-Bus call each
            let batch = (0..<batchCount).map {
                (value: secret, query: ItemQuery<GenericPassword>.credential(for: "batch-\($0)", service: "bench"))
            }
            let batchStore = try clock.measure { try keychain.store(contentsOf: batch) }
            try keychain.removeAll()
            let storeRate = Double(items) / store.seconds
            let retrieveRate = Double(items * passes) / retrieve.seconds
            let batchRate = Double(batchCount) / batchStore.seconds
            print(
                name.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%9.0f     %10.0f      %8.3f%%          %9.0f",
                        storeRate,
                        retrieveRate,
                        storeRate / rawRate * 100,
                        batchRate
                    )
            )
            if name.hasPrefix("encrypted file") {
                summary = String(
                    format:
                        "summary: encrypted file retrieve %.0f/s (target >= 200000), batch store %.0f items/s (target >= 50000), one-item store %.0f/s",
                    retrieveRate,
                    batchRate,
                    storeRate
                )
            }
        }
        print(summary)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var ms: Double { seconds * 1000 }
}
