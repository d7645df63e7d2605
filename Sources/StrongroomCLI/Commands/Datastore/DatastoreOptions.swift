// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto
import StrongroomDatastore
import StrongroomKeychain

/// Where a datastore is and how it is opened: `--directory`, `--name`, and one key source —
///
/// - `--key-file`: a 32-byte data key (raw, hex, base64 or base64url; `strongroom keys access-key` writes one);
/// - a password (`--password`, `--password-file`, or `STRONGROOM_DATASTORE_PASSWORD`) that unwraps a data key kept
///   in the keychain (``KeychainKeyProvider``; the keychain is chosen and unlocked as for `strongroom keychain`:
///   `--keychain-file`/`STRONGROOM_KEYCHAIN`, `--passphrase-file`/`STRONGROOM_KEYCHAIN_PASSPHRASE`);
/// - `--keychain-key`: a data key kept in the keychain as an item of its own, protected by the keychain's passphrase
///   alone (one key derivation per command instead of two; none while `strongroom agent` runs);
/// - `--unencrypted`, never the default.
///
/// The keychain flags are not here: a local `store` command takes them with ``DatastoreOptions``, a networked one
/// with the profile's (``SyncedDatastoreOptions``), so each command has them once.
struct DatastoreSelection: ParsableArguments {
    @Option(help: "The folder that holds the datastores.") var directory: String
    @Option(help: "The datastore's name (a-z, 0-9, _$()+-, starting with a letter).") var name: String
    @Option(help: "A file with the 32-byte data key: raw, hex, base64 or base64url (mode 0600).") var keyFile: String?
    @Flag(help: "Unwrap the data key from the keychain with a password (typed, or STRONGROOM_DATASTORE_PASSWORD).")
    var password = false
    @Option(help: "Read the datastore password from this file's first line (implies --password).")
    var passwordFile: String?
    @Flag(
        help:
            "Keep the data key in the keychain, protected by its passphrase alone (one unlock; none while `strongroom agent` runs)."
    )
    var keychainKey = false
    @Option(help: "The keychain entry of the wrapped data key (default: the datastore's name).") var keyID: String?
    @Option(help: "Argon2id cost of a new password wrap: interactive, moderate (default) or sensitive.")
    var kdf = "moderate"
    @Flag(help: "Open an unencrypted datastore (never the default).") var unencrypted = false

    /// How the data key is found.
    enum KeySource {
        case file(String)
        case password
        case keychain
        case none
    }

    var manager: DatastoreManager {
        get throws { try DatastoreManager(directory: URL(fileURLWithPath: directory)) }
    }

    /// Exactly one key source; the password environment variable counts only when nothing else is given.
    var keySource: KeySource {
        get throws {
            let environment = ProcessInfo.processInfo.environment["STRONGROOM_DATASTORE_PASSWORD"] != nil
            let wantsPassword = password || passwordFile != nil
            switch (keyFile, wantsPassword, keychainKey, unencrypted) {
            case (let path?, false, false, false): return .file(path)
            case (nil, true, false, false): return .password
            case (nil, false, true, false): return .keychain
            case (nil, false, false, true): return .none
            case (nil, false, false, false) where environment: return .password
            default:
                throw CLIError(
                    description:
                        "error: give one of --key-file, --password (or --password-file), --keychain-key and --unencrypted",
                    exitCode: .validationFailure
                )
            }
        }
    }

    /// Opens the datastore with the chosen key source. Only `store create` and `put`/`import --create` pass
    /// `.createIfMissing`: everything else on a missing datastore is "not found" (exit 7), so a mistyped
    /// `--name` or `--directory` creates nothing — no folder, no database, no wrapped key in the keychain.
    func open(mode: DatastoreManager.OpenMode = .existing, keychain: KeychainOptions) async throws -> Datastore {
        let manager = try manager
        // Checked here too, before the key source runs: a password prompt for a mistyped name would come first.
        if mode == .existing, try !manager.exists(named: name) {
            throw CLIError(
                description: "error: there is no datastore '\(name)' in \(directory) "
                    + "(make one with `strongroom store create`, or pass --create to put and import)",
                exitCode: .init(7)
            )
        }
        switch try keySource {
        case .file(let path):
            return try await manager.datastore(named: name, keyProvider: try Self.provider(path), mode: mode)
        case .password:
            return try await manager.datastore(
                named: name,
                keyProvider: try await keychainProvider(keychain: keychain),
                mode: mode
            )
        case .keychain:
            let provider = KeychainKeyProvider(identifier: keyID ?? name, keychain: try await keychain.open())
            return try await manager.datastore(named: name, keyProvider: provider, mode: mode)
        case .none:
            return try manager.datastore(named: name, mode: mode)
        }
    }

    /// Opens the datastore, runs `body`, and closes it whether `body` succeeds or throws.
    func withDatastore<R>(
        mode: DatastoreManager.OpenMode = .existing,
        keychain: KeychainOptions,
        _ body: (Datastore) async throws -> R
    ) async throws -> R {
        let datastore = try await open(mode: mode, keychain: keychain)
        do {
            let result = try await body(datastore)
            await datastore.close()
            return result
        } catch {
            await datastore.close()
            throw error
        }
    }

    /// The keychain provider for the password source.
    func keychainProvider(keychain: KeychainOptions) async throws -> KeychainKeyProvider {
        let secret = try KeychainOptions.secret(
            file: passwordFile,
            environment: "STRONGROOM_DATASTORE_PASSWORD",
            prompt: "datastore password: "
        )
        return KeychainKeyProvider(
            password: secret,
            identifier: keyID ?? name,
            keychain: try await keychain.open(),
            parameters: try KeychainCommand.parameters(kdf)
        )
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
        if text.utf8.count == 64, var key = hexBytes(text) {
            defer { Wipe.bytes(&key) }
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

/// A local `store` command's flags: the datastore and the keychain its key may be kept in.
@dynamicMemberLookup
struct DatastoreOptions: ParsableArguments {
    @OptionGroup var datastore: DatastoreSelection
    @OptionGroup var keychain: KeychainOptions

    subscript<T>(dynamicMember path: KeyPath<DatastoreSelection, T>) -> T { datastore[keyPath: path] }

    /// A command's whole run: `body` with the open datastore, closed afterwards.
    func run(mode: DatastoreManager.OpenMode = .existing, _ body: (Datastore) async throws -> Void) async throws {
        try await datastore.withDatastore(mode: mode, keychain: keychain, body)
    }

    /// Opens the datastore, runs `body`, and closes it whether `body` succeeds or throws.
    func withDatastore<R>(
        mode: DatastoreManager.OpenMode = .existing,
        _ body: (Datastore) async throws -> R
    ) async throws -> R {
        try await datastore.withDatastore(mode: mode, keychain: keychain, body)
    }

    /// The keychain provider for the password source.
    func keychainProvider() async throws -> KeychainKeyProvider {
        try await datastore.keychainProvider(keychain: keychain)
    }
}

/// A networked `store` command's flags: the datastore, and the profile as every networked command takes it
/// (``ProfileOptions``: profile, server trust and pins, client identity, key log, and the keychain).
@dynamicMemberLookup
struct SyncedDatastoreOptions: ParsableArguments {
    @OptionGroup var datastore: DatastoreSelection
    @OptionGroup var profile: ProfileOptions

    subscript<T>(dynamicMember path: KeyPath<DatastoreSelection, T>) -> T { datastore[keyPath: path] }

    /// Opens the datastore, runs `body`, and closes it whether `body` succeeds or throws.
    func withDatastore<R>(
        mode: DatastoreManager.OpenMode = .existing,
        _ body: (Datastore) async throws -> R
    ) async throws -> R {
        try await datastore.withDatastore(mode: mode, keychain: profile.keychain, body)
    }

    /// A client for the profile.
    func client() async throws -> Client { try await profile.client() }
}
