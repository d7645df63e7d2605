// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCore
import StrongroomCrypto

/// `--profile`, `--profile-directory`, the keychain flags and the transport flags every networked command takes.
struct ProfileOptions: ParsableArguments {
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var keychain: KeychainOptions

    var profile: String { connection.profile }
    var directory: URL { connection.directory }

    /// The transport options these flags describe, for the server at `server`.
    func transportOptions(server: URL) async throws -> Client.TransportOptions {
        try await connection.transportOptions(keychain: keychain, server: server)
    }

    /// The saved configuration of `profile`.
    func configuration() async throws -> Client.Configuration { try await connection.configuration(keychain: keychain) }

    /// Saves `configuration` as this profile, in the keychain or as a file.
    func save(_ configuration: Client.Configuration) async throws {
        try await connection.save(configuration, keychain: keychain)
    }

    /// A client for `profile`.
    func client() async throws -> Client { try await connection.client(keychain: keychain) }
}

/// The profile and transport flags, ``ProfileOptions``' half without the keychain's; no command takes it alone.
struct ConnectionOptions: ParsableArguments {
    @Option(help: "The profile to use. Env: STRONGROOM_PROFILE.")
    var profile = ProcessInfo.processInfo.environment["STRONGROOM_PROFILE"] ?? "default"

    @Option(
        help:
            "Where profiles live (default ~/.strongroom; ~/.tozny shares them with the official SDKs). Env: STRONGROOM_HOME."
    )
    var profileDirectory: String?

    @Option(help: "Trust only the CA certificates in this PEM file (a private CA or a self-signed server).")
    var caFile: String?

    @Option(
        name: .customLong("pin"),
        help: "Accept only a server whose key has this SPKI SHA-256 (base64); repeat for backup pins."
    )
    var pins: [String] = []

    @Option(help: "Use the roots and pins saved in the keychain under this label (`pki save-trust`).")
    var serverTrust: String?

    @Option(help: "Seconds a request may take.") var timeout = 60

    @Option(help: "Present this keychain identity (from `pki enroll` or `pki import-p12`) over mutual TLS.")
    var clientIdentity: String?

    @Option(
        help:
            "Reach the server through this HTTP proxy: http://[user:password@]host:port (https in a CONNECT tunnel, verified end to end). Env: STRONGROOM_PROXY, else https_proxy / http_proxy unless no_proxy names the server."
    )
    var proxy: String?

    @Option(help: "Present this PEM client certificate (chain) over mutual TLS; needs --client-key.")
    var clientCertificate: String?

    @Option(help: "The PEM private key of --client-certificate.") var clientKey: String?

    @Flag(help: "Keep the profile in the keychain (see `strongroom keychain`) instead of a 0600 file.")
    var inKeychain = false

    @Option(
        help: """
            Pin the server's key log key (name+keyid+base64, from `strongroom-server keylog key`) instead of trusting \
            the first one seen. Env: STRONGROOM_KEYLOG_KEY.
            """
    )
    var keylogKey: String?

    @Option(
        name: .customLong("keylog-witness"),
        help: "A witness whose cosignatures count (its key, from `strongroom-server witness key`); repeatable."
    )
    var keylogWitnesses: [String] = []

    @Option(help: "How many --keylog-witness cosignatures a checkpoint needs (default: all of them).")
    var keylogWitnessesRequired: Int?

    @Flag(
        help: """
            UNSAFE: take the server's word for other clients' public keys (no key log checks), as the official SDKs \
            do. Only for servers without a key log.
            """
    )
    var trustServerKeys = false

    @Option(
        help: """
            How the access keys this command seals are sealed: prefer (X-Wing beside X25519 where the reader has an \
            X-Wing key; replicated stores: X-Wing only), require (X-Wing only: the official SDKs cannot read them), \
            off (X25519 only). Env: STRONGROOM_POST_QUANTUM. Overrides the types' policies saved with \
            `strongroom keys post-quantum --type`.
            """
    )
    var postQuantum: PostQuantumOption?

    /// `--post-quantum`, else `STRONGROOM_POST_QUANTUM`, else nil (the SDK's policy).
    func postQuantumMode() throws -> PostQuantumPolicy.Mode? {
        if let postQuantum { return postQuantum.mode }
        guard let text = ProcessInfo.processInfo.environment["STRONGROOM_POST_QUANTUM"], !text.isEmpty else {
            return nil
        }
        guard let mode = PostQuantumPolicy.Mode(rawValue: text) else {
            throw ValidationError("STRONGROOM_POST_QUANTUM is off, prefer or require, not \(text)")
        }
        return mode
    }

    var directory: URL {
        (profileDirectory ?? ProcessInfo.processInfo.environment["STRONGROOM_HOME"]).map { URL(fileURLWithPath: $0) }
            ?? Client.Configuration.defaultProfileDirectory
    }

    /// The transport options these flags describe for the server at `server`; `keychain` opens the keychain when a
    /// flag names an item in it.
    func transportOptions(keychain: KeychainOptions, server: URL) async throws -> Client.TransportOptions {
        let trust: ServerTrust
        if let serverTrust {
            guard caFile == nil, pins.isEmpty else {
                throw CLIError(
                    description: "error: --server-trust already holds the roots and pins (no --ca-file or --pin)",
                    exitCode: .validationFailure
                )
            }
            trust = try ServerTrust.keychain(try await keychain.open(), label: serverTrust)
        } else {
            trust = ServerTrust(roots: try Self.roots(caFile), pins: Set(try pins.map(Self.pin)))
        }
        return Client.TransportOptions(
            serverTrust: trust,
            requestTimeout: .seconds(timeout),
            clientIdentity: try await identity(keychain: keychain),
            proxy: try Self.proxy(for: server, flag: proxy, environment: ProcessInfo.processInfo.environment)
        )
    }

    /// The proxy for `server`: `--proxy`, else `STRONGROOM_PROXY`, else the one `https_proxy` / `http_proxy` name
    /// unless `no_proxy` names the server (`HTTPProxy.fromEnvironment`); nil for none. A bad URL is exit 4 naming
    /// where it came from.
    static func proxy(for server: URL, flag: String?, environment: [String: String]) throws -> HTTPProxy? {
        do {
            if let flag, !flag.isEmpty { return try HTTPProxy.named(by: "--proxy", flag) }
            if let own = environment["STRONGROOM_PROXY"], !own.isEmpty {
                return try HTTPProxy.named(by: "STRONGROOM_PROXY", own)
            }
            return try HTTPProxy.fromEnvironment(for: server, environment: environment)
        } catch {
            throw CLIError(description: "error: \(error.message)", exitCode: .init(4))
        }
    }

    /// The server URL `text`: http(s), a host, no path (the SDK adds `/v1/…`); else exit 4 saying which.
    static func serverURL(_ text: String) throws -> URL {
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            // `localhost:8080` parses as scheme `localhost`: the usual slip is a missing `http://`.
            let hint = text.contains("://") ? "" : " (with its scheme: http://\(text) or https://\(text))"
            throw CLIError(description: "error: \(text) is not an http(s) URL\(hint)", exitCode: .init(4))
        }
        guard url.path.isEmpty || url.path == "/" else {
            throw CLIError(
                description: "error: the URL has a path (\(url.path)): give the server's root, without /v1",
                exitCode: .init(4)
            )
        }
        return url
    }

    /// The roots in the PEM file at `path`, or the system's without one.
    static func roots(_ path: String?) throws -> ServerTrust.Roots {
        guard let path else { return .system }
        do {
            return try ServerTrust.roots(pemBundle: try String(contentsOfFile: path, encoding: .utf8))
        } catch {
            throw CLIError(description: "error: \(path): \(error)", exitCode: .validationFailure)
        }
    }

    /// The pin `text` (base64 of 32 bytes, optionally `sha256/…`).
    static func pin(_ text: String) throws -> PublicKeyPin {
        guard let pin = PublicKeyPin(base64: text) else {
            throw CLIError(description: "error: pin \(text) is not base64 of 32 bytes", exitCode: .validationFailure)
        }
        return pin
    }

    /// The client identity from `--client-identity` or `--client-certificate`/`--client-key`, or nil.
    private func identity(keychain: KeychainOptions) async throws -> ClientIdentity? {
        if let clientIdentity { return try ClientIdentity.keychain(try await keychain.open(), label: clientIdentity) }
        guard let clientCertificate else {
            if clientKey != nil {
                throw CLIError(
                    description: "error: --client-key needs --client-certificate",
                    exitCode: .validationFailure
                )
            }
            return nil
        }
        guard let clientKey else {
            throw CLIError(description: "error: --client-certificate needs --client-key", exitCode: .validationFailure)
        }
        do {
            return try ClientIdentity(
                certificatePEM: try String(contentsOfFile: clientCertificate, encoding: .utf8),
                privateKeyPEM: try String(contentsOfFile: clientKey, encoding: .utf8)
            )
        } catch {
            throw CLIError(description: "error: \(clientCertificate): \(error)", exitCode: .validationFailure)
        }
    }

    /// The saved configuration of `profile`.
    func configuration(keychain: KeychainOptions) async throws -> Client.Configuration {
        do {
            return try await savedConfiguration(keychain: keychain)
        } catch let error as ClientError where error.code == .notFound {
            // The first command of a new user: say what to do, not only what is missing.
            let place = inKeychain ? "in the keychain" : "in \(directory.path)"
            throw CLIError(
                description: "error: there is no profile \(profile) \(place): register first "
                    + "(strongroom register --url URL --token TOKEN), or choose one with --profile",
                exitCode: .init(7)
            )
        }
    }

    /// The saved configuration of `profile`; `ClientError` `notFound` when there is none.
    func savedConfiguration(keychain: KeychainOptions) async throws -> Client.Configuration {
        if inKeychain { return try Client.Configuration(loadProfile: profile, from: try await keychain.open()) }
        return try Client.Configuration(loadProfile: profile, from: directory)
    }

    /// Saves `configuration` as this profile, in the keychain or as a file.
    func save(_ configuration: Client.Configuration, keychain: KeychainOptions) async throws {
        try await save(configuration, as: profile, keychain: keychain)
    }

    /// Saves `configuration` as the profile `name`, where this profile lives (the keychain or its folder).
    func save(_ configuration: Client.Configuration, as name: String, keychain: KeychainOptions) async throws {
        if inKeychain {
            try configuration.save(profile: name, to: try await keychain.open())
        } else {
            try configuration.save(profile: name, in: directory)
        }
    }

    /// A client for `profile`.
    func client(keychain: KeychainOptions) async throws -> Client {
        var configuration = try await configuration(keychain: keychain)
        configuration.keyLog = try keyLogVerification()
        if let mode = try postQuantumMode() {
            // Named: every type this command seals takes it, replicated stores' too (`prefer` keeps theirs), over
            // any type's policy saved in the profile.
            configuration.postQuantum.modes.removeAll()
            configuration.postQuantum.defaultMode = mode
            if mode != .prefer { configuration.postQuantum.replicatedMode = mode }
        }
        return try Client(
            configuration: configuration,
            options: try await transportOptions(keychain: keychain, server: configuration.apiURL)
        )
    }

    /// The key log checks these flags ask for: the pinned key (or the first one seen), the state kept beside the
    /// profile's `e3db.json` (`keylog.json`, when the profile has its folder), or none at all with
    /// `--trust-server-keys` (and a warning on every run).
    func keyLogVerification() throws -> KeyLogVerification {
        if trustServerKeys {
            printError("warning: --trust-server-keys: other clients' public keys are taken on the server's word")
            return .trustingTheServer()
        }
        var verification = KeyLogVerification()
        if let keylogKey = keylogKey ?? ProcessInfo.processInfo.environment["STRONGROOM_KEYLOG_KEY"],
            !keylogKey.isEmpty
        {
            do {
                verification.verifierKey = try NoteVerifierKey(keylogKey)
            } catch {
                throw CLIError(description: "error: --keylog-key is not a key log verifier key", exitCode: .init(5))
            }
        }
        verification.witnesses = try keylogWitnesses.map { text in
            do {
                return try CosignerKey(text)
            } catch {
                throw CLIError(description: "error: --keylog-witness \(text) is not a witness key", exitCode: .init(5))
            }
        }
        let required = keylogWitnessesRequired ?? verification.witnesses.count
        guard (0...verification.witnesses.count).contains(required) else {
            throw CLIError(
                description: "error: --keylog-witnesses-required is 0 to the number of --keylog-witness keys",
                exitCode: .validationFailure
            )
        }
        verification.requiredCosignatures = required
        // An explicit --keylog-witnesses-required (0 included) is the user's policy: no witness adopted from the server.
        verification.adoptsAdvertisedWitnesses = keylogWitnessesRequired == nil
        let folder = profile.isEmpty ? directory : directory.appending(path: profile)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue {
            verification.state = KeyLogFileState(url: folder.appending(path: "keylog.json"))
        }
        return verification
    }
}
