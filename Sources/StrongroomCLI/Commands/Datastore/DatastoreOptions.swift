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
    @Option(help: "A file with the 32-byte data key (base64url, mode 0600).") var keyFile: String?
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

    /// A raw-key provider for the key in `path`.
    static func provider(_ path: String) throws -> SimpleKeyProvider {
        SimpleKeyProvider(key: try EncryptionKey(KeyFile.read(path).rawRepresentation))
    }
}
