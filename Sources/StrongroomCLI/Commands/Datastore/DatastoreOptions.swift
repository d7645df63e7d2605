// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore

/// Where a datastore is and how it is opened: `--directory`, `--name`, and `--key-file` (a 32-byte key as
/// `strongroom keys access-key` writes it, mode 0600) or `--unencrypted`.
struct DatastoreOptions: ParsableArguments {
    @Option(help: "The folder that holds the datastores.") var directory: String
    @Option(help: "The datastore's name (a-z, 0-9, _$()+-, starting with a letter).") var name: String
    @Option(help: "A file with the 32-byte data key: raw, hex, base64 or base64url (mode 0600).") var keyFile: String?
    @Flag(help: "Open an unencrypted datastore (never the default).") var unencrypted = false

    var manager: DatastoreManager {
        get throws { try DatastoreManager(directory: URL(fileURLWithPath: directory)) }
    }

    /// Opens the datastore; exactly one of `--key-file` and `--unencrypted` is required.
    func open() async throws -> Datastore {
        switch (keyFile, unencrypted) {
        case (let path?, false): try await manager.datastore(named: name, keyProvider: try Self.provider(path))
        case (nil, true): try manager.datastore(named: name)
        default:
            throw CLIError(description: "error: give --key-file or --unencrypted", exitCode: .validationFailure)
        }
    }

    /// A raw-key provider for the key in `path`: 32 raw bytes, 64 hex digits, or base64/base64url text (as
    /// `strongroom keys access-key` writes), surrounding whitespace ignored.
    static func provider(_ path: String) throws -> SimpleKeyProvider {
        guard var bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
            throw CLIError(description: "error: cannot read the key file \(path)", exitCode: .init(6))
        }
        defer { Wipe.bytes(&bytes) }
        if bytes.count == 32 { return SimpleKeyProvider(key: try EncryptionKey(bytes)) }
        var text = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        defer { text = "" }
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            var key = [UInt8](repeating: 0, count: 32)
            defer { Wipe.bytes(&key) }
            let digits = Array(text.utf8)
            for index in 0..<32 {
                key[index] = UInt8(String(decoding: digits[2 * index...2 * index + 1], as: UTF8.self), radix: 16) ?? 0
            }
            return SimpleKeyProvider(key: try EncryptionKey(key))
        }
        let urlSafe = text.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        guard let decoded = try? Base64URL.decodeSecret(urlSafe, padding: .allowed), decoded.count == 32 else {
            throw CLIError(
                description: "error: the key file holds no 32-byte key (raw, hex, base64 or base64url)",
                exitCode: .init(5)
            )
        }
        return SimpleKeyProvider(key: try EncryptionKey(decoded))
    }
}
