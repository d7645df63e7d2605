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
        print("backend                         store/s     retrieve/s   store vs raw seal")
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
        for (name, keychain) in backends {
            let store = try clock.measure {
                for index in 0..<items {
                    try keychain.store(secret, query: .credential(for: "account-\(index)", service: "bench"))
                }
            }
            let retrieve = try clock.measure {
                for index in 0..<items {
                    _ = try keychain.retrieve(
                        .credential(for: "account-\(index)", service: "bench"),
                        as: SecureBytes.self
                    )
                }
            }
            try keychain.removeAll()
            let storeRate = Double(items) / store.seconds
            print(
                name.padding(toLength: 30, withPad: " ", startingAt: 0)
                    + String(
                        format: "%9.0f     %10.0f      %8.3f%%",
                        storeRate,
                        Double(items) / retrieve.seconds,
                        storeRate / rawRate * 100
                    )
            )
        }
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
    var ms: Double { seconds * 1000 }
}
