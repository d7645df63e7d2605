// Strongroom — SPDX-License-Identifier: Apache-2.0
import Foundation
import StrongroomCrypto
import StrongroomTesting
import Testing

/// `strongroom protect | unprotect` (keychain keys and build-time key files) and `strongroom file encrypt | decrypt
/// --key-file`, through the real binary.
@Suite struct CLIProtectTests {
    private func run(_ arguments: [String], in folder: URL) async throws -> ExternalProcess.Outcome {
        try await ExternalProcess.run(
            CLISessionTests.CLI.executable,
            arguments: arguments,
            directory: folder,
            environment: ["STRONGROOM_KEYCHAIN_PASSPHRASE": "cli pass", "STRONGROOM_HOME": folder.path]
        )
    }

    @Test("protect and unprotect with a keychain key; a tampered file exits 3 and writes nothing; no plaintext")
    func protectWithKeychain() async throws {
        try await withTemporaryDirectory { folder in
            let keychain = ["--keychain-file", folder.appending(path: "k").path]
            #expect(try await run(["keychain", "create", "--kdf", "minimum"] + keychain, in: folder).status == 0)
            let secret = Data(String(repeating: "api-token-PLAINTEXT ", count: 5000).utf8)
            try secret.write(to: folder.appending(path: "secret.txt"))
            let protected = try await run(
                ["protect", "--key", "assets", "secret.txt", "secret.protected"] + keychain,
                in: folder
            )
            #expect(protected.status == 0, "\(protected.output)")
            let bytes = try Data(contentsOf: folder.appending(path: "secret.protected"))
            #expect(bytes.range(of: Data("PLAINTEXT".utf8)) == nil)
            let back = try await run(
                ["unprotect", "--key", "assets", "secret.protected", "back.txt"] + keychain,
                in: folder
            )
            #expect(back.status == 0, "\(back.output)")
            #expect(try Data(contentsOf: folder.appending(path: "back.txt")) == secret)

            var tampered = bytes
            tampered[tampered.count / 2] ^= 0x04
            try tampered.write(to: folder.appending(path: "tampered"))
            let refused = try await run(["unprotect", "--key", "assets", "tampered", "out.txt"] + keychain, in: folder)
            #expect(refused.status == 3, "\(refused.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "out.txt").path))
            let noKey = try await run(
                ["unprotect", "--key", "missing", "secret.protected", "o2"] + keychain,
                in: folder
            )
            #expect(noKey.status == 5, "\(noKey.output)")
        }
    }

    @Test("age files: protect --to a post-quantum recipient, unprotect --identity; another identity exits 5")
    func ageFiles() async throws {
        try await withTemporaryDirectory { folder in
            let (bob, carol) = (AgeIdentity.generate(), AgeIdentity.generate())
            let classical = AgeIdentity.generate(postQuantum: false)
            try Data("# bob\n\(bob.secretText)\n".utf8).write(to: folder.appending(path: "bob.key"))
            try Data("\(carol.secretText)\n".utf8).write(to: folder.appending(path: "carol.key"))
            let secret = Data(String(repeating: "age-PLAINTEXT ", count: 10_000).utf8)
            try secret.write(to: folder.appending(path: "secret.txt"))
            let sealed = try await run(
                ["protect", "secret.txt", "secret.age", "--to", bob.recipient.description],
                in: folder
            )
            #expect(sealed.status == 0, "\(sealed.output)")
            let bytes = try Data(contentsOf: folder.appending(path: "secret.age"))
            #expect(bytes.starts(with: Data("age-encryption.org/v1\n-> mlkem768x25519 ".utf8)))
            #expect(bytes.range(of: Data("PLAINTEXT".utf8)) == nil)
            let back = try await run(["unprotect", "secret.age", "back.txt", "--identity", "bob.key"], in: folder)
            #expect(back.status == 0, "\(back.output)")
            #expect(try Data(contentsOf: folder.appending(path: "back.txt")) == secret)
            // Not for carol: exit 5, nothing written; an age file without an identity: a usage error.
            let other = try await run(["unprotect", "secret.age", "c.txt", "--identity", "carol.key"], in: folder)
            #expect(other.status == 5, "\(other.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "c.txt").path))
            let noIdentity = try await run(["unprotect", "--key-file", "bob.key", "secret.age", "d.txt"], in: folder)
            #expect(noIdentity.status == 64 && noIdentity.output.contains("--identity"), "\(noIdentity.output)")
            var tampered = bytes
            tampered[tampered.count - 40] ^= 0x10
            try tampered.write(to: folder.appending(path: "tampered.age"))
            let refused = try await run(["unprotect", "tampered.age", "t.txt", "--identity", "bob.key"], in: folder)
            #expect(refused.status == 3, "\(refused.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "t.txt").path))
            let mixed = try await run(
                [
                    "protect", "secret.txt", "m.age", "--to", bob.recipient.description, "--to",
                    classical.recipient.description,
                ],
                in: folder
            )
            #expect(mixed.status == 64, "\(mixed.output)")
            let bad = try await run(["protect", "secret.txt", "b.age", "--to", "age1pq1nonsense"], in: folder)
            #expect(bad.status == 5, "\(bad.output)")
        }
    }

    @Test("build-time assets: protect with a key file, import the key, unprotect from the keychain")
    func buildTimeKeyFile() async throws {
        try await withTemporaryDirectory { folder in
            let keychain = ["--keychain-file", folder.appending(path: "k").path]
            #expect(try await run(["keychain", "create", "--kdf", "minimum"] + keychain, in: folder).status == 0)
            #expect(try await run(["keys", "access-key", "--output", "build.key"], in: folder).status == 0)
            try Data("asset".utf8).write(to: folder.appending(path: "asset"))
            #expect(try await run(["protect", "--key-file", "build.key", "asset", "asset.p"], in: folder).status == 0)
            let imported = try await run(
                ["protect", "import-key", "--key", "shipped", "build.key"] + keychain,
                in: folder
            )
            #expect(imported.status == 0, "\(imported.output)")
            let back = try await run(["unprotect", "--key", "shipped", "asset.p", "asset.out"] + keychain, in: folder)
            #expect(back.status == 0, "\(back.output)")
            #expect(try String(contentsOf: folder.appending(path: "asset.out"), encoding: .utf8) == "asset")
        }
    }

    @Test("file encrypt and decrypt with --key-file; another key exits 3 and writes nothing")
    func fileEncryptDecrypt() async throws {
        try await withTemporaryDirectory { folder in
            #expect(try await run(["keys", "access-key", "--output", "a.key"], in: folder).status == 0)
            #expect(try await run(["keys", "access-key", "--output", "b.key"], in: folder).status == 0)
            let plain = Data(repeating: 0x61, count: 2_500_000)
            try plain.write(to: folder.appending(path: "plain"))
            let encrypted = try await run(["file", "encrypt", "--key-file", "a.key", "plain", "enc"], in: folder)
            #expect(encrypted.status == 0, "\(encrypted.output)")
            let decrypted = try await run(["file", "decrypt", "--key-file", "a.key", "enc", "dec"], in: folder)
            #expect(decrypted.status == 0, "\(decrypted.output)")
            #expect(try Data(contentsOf: folder.appending(path: "dec")) == plain)
            let wrong = try await run(["file", "decrypt", "--key-file", "b.key", "enc", "dec2"], in: folder)
            #expect(wrong.status == 3, "\(wrong.output)")
            #expect(!FileManager.default.fileExists(atPath: folder.appending(path: "dec2").path))
        }
    }
}
