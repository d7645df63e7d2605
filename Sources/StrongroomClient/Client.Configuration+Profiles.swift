// Strongroom — SPDX-License-Identifier: Apache-2.0
public import Foundation
import StrongroomCore
import StrongroomCrypto
import StrongroomWire

extension Client.Configuration {
    /// Where profiles live by default: `~/.strongroom`. Pass `~/.tozny` to share profiles with the official SDKs,
    /// which use the same file format.
    public static var defaultProfileDirectory: URL {
        HomeDirectory.url.appending(path: ".strongroom")
    }

    /// The official SDKs' configuration file (`e3db.json`, version 2).
    private struct File: Codable {
        var version: Int
        var clientID: String
        var apiKeyID: String
        var apiSecret: String
        var clientEmail: String?
        var publicKey: String
        var privateKey: String
        var publicSigningKey: String?
        var privateSigningKey: String?
        var apiURL: String
        var clientName: String?
        /// Strongroom's own: the X-Wing key's 32-byte seed, base64url (the official SDKs ignore it).
        var privateHybridKey: String?
        /// Strongroom's own: the post-quantum modes of particular types (``PostQuantumPolicy/modes``); absent when
        /// there are none.
        var postQuantum: PostQuantumFile?

        enum CodingKeys: String, CodingKey {
            case version
            case clientID = "client_id"
            case apiKeyID = "api_key_id"
            case apiSecret = "api_secret"
            case clientEmail = "client_email"
            case publicKey = "public_key"
            case privateKey = "private_key"
            case publicSigningKey = "public_signing_key"
            case privateSigningKey = "private_signing_key"
            case apiURL = "api_url"
            case clientName = "client_name"
            case privateHybridKey = "private_hybrid_key"
            case postQuantum = "post_quantum"
        }
    }

    /// `"post_quantum": {"types": {"TYPE": "off|prefer|require"}}` in a profile.
    private struct PostQuantumFile: Codable {
        /// The most types a profile names (a bound on what reading a profile file may cost).
        static let maximumTypes = 10_000
        /// The longest type name kept.
        static let maximumTypeBytes = 1_024

        var types: [String: String]

        /// The modes, each checked.
        func modes() throws -> [String: PostQuantumPolicy.Mode] {
            guard types.count <= Self.maximumTypes else {
                throw ClientError(.invalidConfiguration, "the profile names more than \(Self.maximumTypes) types")
            }
            var modes: [String: PostQuantumPolicy.Mode] = [:]
            for (type, text) in types {
                guard (1...Self.maximumTypeBytes).contains(type.utf8.count) else {
                    throw ClientError(.invalidConfiguration, "a post-quantum policy names a type of 1 to 1,024 bytes")
                }
                guard let mode = PostQuantumPolicy.Mode(rawValue: text) else {
                    throw ClientError(
                        .invalidConfiguration,
                        "the post-quantum policy of \"\(type.prefix(64))\" is off, prefer or require, not \(text.prefix(16))"
                    )
                }
                modes[type] = mode
            }
            return modes
        }
    }

    /// The file of a profile: `<directory>/<profile>/e3db.json`, or `<directory>/e3db.json` for `""`.
    static func profileFile(_ profile: String, in directory: URL) -> URL {
        (profile.isEmpty ? directory : directory.appending(path: profile)).appending(path: "e3db.json")
    }

    /// Saves the configuration as a profile, in the official SDKs' `e3db.json` format: directory 0700, file 0600,
    /// written to a temporary file and renamed into place.
    ///
    /// - Warning: The file holds the API secret and the private keys in the clear, protected by its permissions
    ///   only; ``save(profile:to:accessPolicy:)`` keeps them in a `Keychain` instead.
    /// - Throws: ``ClientError/Code/invalidConfiguration`` when the profile cannot be written.
    public func save(profile: String, in directory: URL = Self.defaultProfileDirectory) throws(ClientError) {
        let file = Self.profileFile(profile, in: directory)
        do {
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(),
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw ClientError(.invalidConfiguration, "the profile \(profile) could not be saved", underlying: error)
        }
        var data = try profileJSON()
        defer { data.resetBytes(in: 0..<data.count) }
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(data, to: file.path)
        } catch {
            throw ClientError(.invalidConfiguration, "the profile \(profile) could not be saved: \(error.message)")
        }
    }

    /// Loads a saved profile (Strongroom's or an official SDK's `e3db.json`).
    ///
    /// The key log's state (the pinned log key and the newest checkpoint accepted) is kept beside it, in
    /// `keylog.json` (``KeyLogFileState``, written at the first key operation), so only the profile's first run trusts
    /// the log on first use: a later process shown a log under another key, or one that does not extend the
    /// checkpoint kept, is refused. Set ``keyLog`` to change that.
    ///
    /// A version 1 profile has no signing key; it gets a fresh one that the server does not know, so documents it
    /// signs verify only with that new public key.
    ///
    /// - Throws: ``ClientError/Code/notFound`` when there is no such profile; ``ClientError/Code/invalidConfiguration``
    ///   when the file is readable by group or others (as ssh refuses such keys), malformed, or its keys do not load.
    public init(loadProfile profile: String, from directory: URL = Self.defaultProfileDirectory) throws(ClientError) {
        let file = Self.profileFile(profile, in: directory)
        switch AtomicFile.privacy(of: file.path) {
        case .ownerOnly: break
        case .missing: throw ClientError(.notFound, "there is no profile \(profile)")
        case .exposed(let reason):
            throw ClientError(.invalidConfiguration, "the profile \(profile) is refused: \(reason)")
        }
        var data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw ClientError(.invalidConfiguration, "the profile \(profile) could not be read", underlying: error)
        }
        defer { data.resetBytes(in: 0..<data.count) }
        try self.init(profileJSON: data, profile: profile)
        keyLog.state = KeyLogFileState(url: file.deletingLastPathComponent().appending(path: "keylog.json"))
    }

    /// The configuration in the official SDKs' `e3db.json` format (secrets included: wipe it after use).
    func profileJSON() throws(ClientError) -> Data {
        let contents = File(
            version: 2,
            clientID: ClientID(clientID).description,
            apiKeyID: apiKeyID,
            apiSecret: apiSecret.withUnsafeBytes { String(decoding: $0, as: UTF8.self) },
            clientEmail: "",
            publicKey: keys.encryptionKey.publicKey.base64URLEncoded,
            privateKey: keys.encryptionKey.base64URLEncoded,
            publicSigningKey: keys.signingKey.publicKey.base64URLEncoded,
            privateSigningKey: keys.signingKey.base64URLEncoded,
            apiURL: apiURL.absoluteString,
            clientName: clientName,
            privateHybridKey: keys.hybridKey?.seedRepresentation.withUnsafeBytes { Base64URL.encode(Data($0)) },
            postQuantum: postQuantum.modes.isEmpty
                ? nil : PostQuantumFile(types: postQuantum.modes.mapValues(\.rawValue))
        )
        do {
            return try JSONEncoder().encode(contents)
        } catch {
            throw ClientError(.invalidConfiguration, "the configuration could not be encoded", underlying: error)
        }
    }

    /// Reads the `e3db.json` format (Strongroom's or an official SDK's).
    init(profileJSON data: Data, profile: String) throws(ClientError) {
        do {
            let contents = try JSONDecoder().decode(File.self, from: data)
            guard let clientID = UUID(uuidString: contents.clientID), let apiURL = URL(string: contents.apiURL) else {
                throw CocoaError(.fileReadCorruptFile)
            }
            let signingKey =
                try contents.privateSigningKey.flatMap { $0.isEmpty ? nil : $0 }.map(
                    SigningPrivateKey.init(base64URLEncoded:)
                )
                ?? SigningPrivateKey()
            let hybridKey = try contents.privateHybridKey.flatMap { $0.isEmpty ? nil : $0 }.map { text in
                var seed = try Base64URL.decode(text)
                defer { seed.resetBytes(in: 0..<seed.count) }
                return try HybridPrivateKey(seed: SecureBytes(copying: seed))
            }
            self.init(
                clientID: clientID,
                clientName: contents.clientName ?? profile,
                apiKeyID: contents.apiKeyID,
                apiSecret: SecureBytes(copying: Array(contents.apiSecret.utf8)),
                keys: ClientKeys(
                    encryptionKey: try EncryptionPrivateKey(base64URLEncoded: contents.privateKey),
                    signingKey: signingKey,
                    hybridKey: hybridKey
                ),
                apiURL: apiURL
            )
            postQuantum.modes = try contents.postQuantum?.modes() ?? [:]
        } catch let error as ClientError {
            throw ClientError(.invalidConfiguration, "the profile \(profile) is not valid: \(error.message)")
        } catch {
            throw ClientError(
                .invalidConfiguration,
                "the profile \(profile) is not a valid configuration",
                underlying: error
            )
        }
    }
}
