// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCrypto

/// `strongroom file encrypt|decrypt`: E3DB file format "3", locally.
struct FileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Encrypt or decrypt a file in E3DB's large-file format, locally.",
        subcommands: [Encrypt.self, Decrypt.self]
    )

    struct Encrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Encrypt a file under an access key.")

        @Option(name: .long, help: "The access-key file (see `strongroom keys access-key`).")
        var keyFile: String

        @Argument(help: "The plaintext file.") var input: String
        @Argument(help: "Where to write the encrypted file. Must not exist.") var output: String

        func run() async throws {
            try await reportingErrors {
                let summary = try await FileCipher.encrypt(
                    contentsOf: URL(fileURLWithPath: input),
                    to: URL(fileURLWithPath: output),
                    with: try KeyFile.read(keyFile)
                )
                print("encrypted \(summary.plaintextSize) bytes into \(summary.size) bytes, md5 \(summary.checksum)")
            }
        }
    }

    struct Decrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Decrypt a file with its access key.")

        @Option(name: .long, help: "The access-key file.")
        var keyFile: String

        @Argument(help: "The encrypted file.") var input: String
        @Argument(help: "Where to write the plaintext. Must not exist; nothing is written on failure.") var output:
            String

        func run() async throws {
            try await reportingErrors {
                let size = try await FileCipher.decrypt(
                    contentsOf: URL(fileURLWithPath: input),
                    to: URL(fileURLWithPath: output),
                    with: try KeyFile.read(keyFile)
                )
                print("decrypted \(size) bytes")
            }
        }
    }
}
