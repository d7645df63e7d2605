// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import StrongroomClient
import StrongroomCrypto
import StrongroomWire

/// `strongroom register`: creates a client with a registration token and saves it as a profile.
struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register",
        abstract: "Register a new client and save it as a profile (mode 0600)."
    )

    @OptionGroup var profile: ProfileOptions
    @Option(help: "The server's registration token. Env: STRONGROOM_REGISTRATION_TOKEN.") var token: String?
    @Option(help: "The server's URL.") var url = "http://127.0.0.1:8000"
    @Option(help: "A name for the client (default: the profile name).") var name: String?
    @Flag(help: "Replace an existing profile of that name.") var force = false

    /// Whether `profile` holds a profile: a missing one is absent, while one that cannot be read (damaged,
    /// refused for its permissions, a locked keychain) is reported rather than silently replaced.
    static func profileExists(_ profile: ProfileOptions) async throws -> Bool {
        do {
            _ = try await profile.connection.savedConfiguration(keychain: profile.keychain)
            return true
        } catch let error as ClientError where error.code == .notFound {
            return false
        }
    }

    func run() async throws {
        guard let token = token ?? ProcessInfo.processInfo.environment["STRONGROOM_REGISTRATION_TOKEN"],
            !token.isEmpty
        else {
            throw CLIError(description: "error: --token is required", exitCode: .validationFailure)
        }
        let apiURL = try ConnectionOptions.serverURL(url)
        if !force, try await Self.profileExists(profile) {
            throw CLIError(
                description: "error: profile \(profile.profile) exists; pass --force to replace it",
                exitCode: ExitCode(9)
            )
        }
        let configuration = try await Client.register(
            token: token,
            clientName: name ?? profile.profile,
            apiURL: apiURL,
            options: try await profile.transportOptions(server: apiURL)
        )
        try await profile.save(configuration)
        // Standard output is the client ID alone (scripts take it); a person at a terminal is told what happened.
        if isatty(STDERR_FILENO) == 1 {
            printError(
                "registered on \(apiURL.absoluteString) as profile \(profile.profile): its keys are in "
                    + "\(profile.directory.appending(path: profile.profile).path) (owner-only); its client ID:"
            )
        }
        print(ClientID(configuration.clientID).description)
    }
}

/// `strongroom whoami`: the profile's client ID, name, server and public keys.
struct WhoAmICommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "whoami",
        abstract: "Show the profile's client ID, server and public keys (never the private ones)."
    )

    @OptionGroup var profile: ProfileOptions
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let configuration = try await profile.configuration()
        let fields = [
            "profile": profile.profile,
            "client_id": ClientID(configuration.clientID).description,
            "name": configuration.clientName,
            "api_url": configuration.apiURL.absoluteString,
            "public_key": configuration.keys.encryptionKey.publicKey.base64URLEncoded,
            "public_signing_key": configuration.keys.signingKey.publicKey.base64URLEncoded,
        ]
        if json {
            try printJSON(fields)
        } else {
            for key in ["profile", "client_id", "name", "api_url", "public_key", "public_signing_key"] {
                print("\(key.padding(toLength: 19, withPad: " ", startingAt: 0)) \(fields[key] ?? "")")
            }
        }
    }
}

/// `strongroom profile …`: the saved profiles, and changing one's server URL.
struct ProfileCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profile",
        abstract: "List the saved profiles or change one's server URL.",
        subcommands: [ProfilesCommand.self, SetURL.self],
        defaultSubcommand: ProfilesCommand.self
    )

    struct SetURL: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-url",
            abstract: "Point the profile at another URL of its server (https:// once it serves TLS); keys unchanged.",
            discussion: """
                The client stays the same client: only where it connects changes. Check it with `strongroom whoami` \
                or `strongroom doctor`.
                """
        )
        @OptionGroup var profile: ProfileOptions
        @Argument(help: "The server's URL, http(s)://host:port.") var url: String

        func run() async throws {
            let apiURL = try ConnectionOptions.serverURL(url)
            var configuration = try await profile.configuration()
            let previous = configuration.apiURL.absoluteString
            configuration.apiURL = apiURL
            try await profile.save(configuration)
            print("\(profile.profile): \(previous) -> \(apiURL.absoluteString)")
        }
    }
}

/// `strongroom profiles` (also `strongroom profile list`): the saved profiles.
struct ProfilesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "profiles",
        abstract: "List the saved profiles.",
        aliases: ["list"]
    )

    @OptionGroup var profile: ProfileOptions
    @Flag(help: "Print one JSON array.") var json = false

    /// One profile as `--json` prints it (`client_id` and `api_url` are null for one that cannot be read).
    struct Entry: Encodable {
        var profile: String
        var clientID: String?
        var apiURL: String?
        enum CodingKeys: String, CodingKey {
            case profile
            case clientID = "client_id"
            case apiURL = "api_url"
        }
    }

    func run() async throws {
        // A missing profile folder lists no profiles.
        let names = (try? FileManager.default.contentsOfDirectory(atPath: profile.directory.path)) ?? []
        // Profiles are the folders holding an e3db.json; the keychain, its lock, the agent's socket and the
        // key log's files beside them are not profiles.
        let folders = names.filter { name in
            FileManager.default.fileExists(
                atPath: profile.directory.appending(path: name).appending(path: "e3db.json").path
            )
        }
        let entries = folders.sorted().map { name in
            // A profile that cannot be read (damaged, or not a profile) is listed as such, not dropped.
            let configuration = try? Client.Configuration(loadProfile: name, from: profile.directory)
            return Entry(
                profile: name,
                clientID: configuration.map { ClientID($0.clientID).description },
                apiURL: configuration?.apiURL.absoluteString
            )
        }
        if json { return try printJSON(entries) }
        guard !entries.isEmpty else {
            print("none: `strongroom register` makes one (in \(profile.directory.path))")
            return
        }
        printTable(
            ["PROFILE", "CLIENT", "SERVER"],
            entries.map { [$0.profile, $0.clientID ?? "(cannot be read)", $0.apiURL ?? ""] }
        )
    }
}
