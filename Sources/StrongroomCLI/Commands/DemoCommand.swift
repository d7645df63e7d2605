// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto

/// `strongroom demo`: a self-contained tour of the E3DB crypto on this machine.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Run a self-contained round trip: keys, a shared access key, fields, a file and a TSV1 header."
    )

    @Option(name: .customLong("size-mib"), help: "Size of the demo file in MiB.") var sizeMiB = 16

    func run() async throws {
        let writer = ClientKeys.generate()
        let reader = ClientKeys.generate()
        print("writer encryption key  \(writer.encryptionKey.publicKey.base64URLEncoded)")
        print("reader encryption key  \(reader.encryptionKey.publicKey.base64URLEncoded)")

        let accessKey = AccessKey()
        let eak = accessKey.sealed(to: reader.encryptionKey.publicKey, by: writer.encryptionKey)
        let readerCopy = try eak.open(
            authorizerPublicKey: writer.encryptionKey.publicKey,
            readerPrivateKey: reader.encryptionKey
        )
        print(
            "access key sealed to the reader (EAK)  \(eak.wireFormat.prefix(24))…  opened: \(readerCopy == accessKey)"
        )

        let record = ["name": "Ada Lovelace", "note": "first program 🔐"]
        let encrypted = FieldCipher.encrypt(fields: record, with: accessKey)
        let decrypted = try FieldCipher.decrypt(fields: encrypted, with: readerCopy)
        print("record fields encrypted: \(encrypted["name"].map { String($0.prefix(40)) + "…" } ?? "")")
        print("reader decrypts the record: \(decrypted == record)")

        let directory = FileManager.default.temporaryDirectory.appending(
            path: "strongroom-demo-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        // Best-effort cleanup of the demo's temporary folder; the demo's outcome is already decided.
        defer { try? FileManager.default.removeItem(at: directory) }
        let plain = directory.appending(path: "plain.bin")
        let sealed = directory.appending(path: "plain.bin.e3db")
        let opened = directory.appending(path: "opened.bin")
        let bytes = SecureRandom.data(count: sizeMiB << 20)
        try bytes.write(to: plain)
        let clock = ContinuousClock()
        var summary: FileEncryptor.Summary?
        let encryptTime = try await clock.measure {
            summary = try await FileCipher.encrypt(contentsOf: plain, to: sealed, with: accessKey)
        }
        let decryptTime = try await clock.measure {
            _ = try await FileCipher.decrypt(contentsOf: sealed, to: opened, with: readerCopy)
        }
        let same = try Data(contentsOf: opened) == bytes
        if let summary {
            print(
                "file: \(summary.plaintextSize) bytes → \(summary.size) encrypted, md5 \(summary.checksum ?? "-")"
            )
        }
        print("file round trip identical: \(same)  (encrypt \(encryptTime), decrypt \(decryptTime))")

        let header = TSV1.authorization(
            for: .init(method: "GET", path: "/v1/storage/records/x"),
            clientID: UUID().uuidString.lowercased(),
            signingKey: writer.signingKey
        )
        let verified = try TSV1.verify(
            header,
            for: .init(method: "GET", path: "/v1/storage/records/x"),
            now: Date()
        )
        print("TSV1 header verified for nonce \(verified.nonce)")
        guard same, decrypted == record, readerCopy == accessKey else {
            throw CLIError(description: "error: the demo round trip did not match", exitCode: .failure)
        }
        print("all good")
    }
}
