// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomWire

/// `strongroom file encrypt|decrypt`: E3DB file format "3", locally.
struct FileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "file",
        abstract: "Store and fetch encrypted files; encrypt or decrypt E3DB's file format locally.",
        subcommands: [Put.self, Get.self, Encrypt.self, Decrypt.self]
    )

    struct Put: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt a file (streamed, constant memory) and upload it as a record; prints its ID."
        )
        @OptionGroup var profile: ProfileOptions
        @Option(help: "The record type.") var type: String
        @Option(name: .customLong("plain"), help: "Plaintext metadata, name=value; repeatable.") var plain: [String] =
            []
        @Flag(help: "Show a progress bar even when standard error is not a terminal.") var progress = false
        @Argument(help: "The file.") var path: String

        func run() async throws {
            let url = URL(fileURLWithPath: path)
            let size = try InputFile.size(path)
            let bar = progress ? ProgressBar(total: size, enabled: true) : ProgressBar(total: size)
            let info = try await profile.client().writeFile(
                type: type,
                fileURL: url,
                plain: try Fields.parse(plain, json: nil),
                progress: bar.update
            )
            bar.finish()
            print(RecordID(info.meta.recordID).description)
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Download a file record and decrypt it; nothing is written unless it all authenticates."
        )
        @OptionGroup var profile: ProfileOptions
        @Flag(help: "Show a progress bar even when standard error is not a terminal.") var progress = false
        @Argument(help: "The record ID.") var recordID: String
        @Argument(help: "Where to write the file. Must not exist, unless --overwrite.") var destination: String
        @Flag(
            help: """
                Replace an existing file at the destination — only once the whole file has authenticated (it is \
                written beside it, then renamed over it).
                """
        )
        var overwrite = false

        func run() async throws {
            let client = try await profile.client()
            let id = try Fields.uuid(recordID, "record ID")
            let bar = progress ? ProgressBar(total: nil, enabled: true) : ProgressBar(total: nil)
            let target = URL(fileURLWithPath: destination)
            // With --overwrite, a new file beside the destination, renamed over it when complete.
            let staged =
                overwrite
                ? target.deletingLastPathComponent()
                    .appending(path: ".\(target.lastPathComponent).\(UUID().uuidString.prefix(8)).partial")
                : target
            let info = try await naming(missing: Fields.missingFile(recordID)) {
                try await client.readFile(recordID: id, destination: staged, progress: bar.update)
            }
            if overwrite {
                guard rename(staged.path, target.path) == 0 else {
                    let reason = String(cString: strerror(errno))
                    unlink(staged.path)
                    throw CLIError(
                        description: "error: \(destination) could not be replaced: \(reason)",
                        exitCode: ExitCode(6)
                    )
                }
            }
            bar.finish()
            // What was written where, in plaintext bytes (the record's own size is the ciphertext's).
            let written = try? FileManager.default.attributesOfItem(atPath: destination)[.size] as? NSNumber
            let name = info.fileName.map { " (uploaded as \($0))" } ?? ""
            print("wrote \(destination): \(written?.int64Value ?? 0) bytes\(name)")
        }
    }

    struct Encrypt: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Encrypt a file under an access key.")

        @Option(name: .long, help: "The access-key file (see `strongroom keys access-key`).")
        var keyFile: String

        @Argument(help: "The plaintext file.") var input: String
        @Argument(help: "Where to write the encrypted file. Must not exist.") var output: String

        func run() async throws {
            let summary = try await FileCipher.encrypt(
                contentsOf: URL(fileURLWithPath: input),
                to: URL(fileURLWithPath: output),
                with: try KeyFile.read(keyFile)
            )
            print(
                "encrypted \(summary.plaintextSize) bytes into \(summary.size) bytes, md5 \(summary.checksum ?? "-")"
            )
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
            let size = try await FileCipher.decrypt(
                contentsOf: URL(fileURLWithPath: input),
                to: URL(fileURLWithPath: output),
                with: try KeyFile.read(keyFile)
            )
            print("decrypted \(size) bytes")
        }
    }
}
