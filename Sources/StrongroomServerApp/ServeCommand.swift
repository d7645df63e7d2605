// Strongroom — SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import StrongroomCore
import StrongroomServer
import StrongroomServerPostgres
import StrongroomWire

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Run the server until SIGINT or SIGTERM.")

    @OptionGroup var data: DataOptions
    @Option(help: "Address to listen on.") var host = "127.0.0.1"
    @Option(help: "Port to listen on (0 picks one).") var port = 8000
    @Option(help: "Create this registration token at start-up if missing. Env: STRONGROOM_REGISTRATION_TOKEN.")
    var registrationToken: String?
    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).") var logLevel = "info"
    @Option(help: "Write the bound port to this file once listening (useful with --port 0).") var portFile: String?
    @Option(
        help:
            "The URL clients reach this server at, for presigned file URLs. Required unless --host is loopback (then http(s)://host:port)."
    )
    var publicURL: String?
    @Option(help: "The largest file a client may upload, in bytes (default 5 GiB).")
    var maximumFileSize: Int64 = ServerLimits().maximumFileSize
    @Option(help: "Seconds a presigned file URL stays valid (default 60).")
    var presignedURLLifetime: Int64 = ServerLimits().presignedURLLifetime.components.seconds
    @Option(help: "Live notes one signing key may have (default 100).")
    var notesPerKey: Int = ServerLimits().notesPerKey
    @Option(help: "Live notes on the server (default 100000); anonymous writers' notes take at most half.")
    var notesTotal: Int = ServerLimits().notesTotal
    @Option(help: "Live anonymous notes from one source address or IPv6 /64 (default 1000).")
    var notesPerSource: Int = ServerLimits().notesPerSource
    @Option(
        help:
            "Days a note lives at most: notes without an expiry expire then, later expirations are brought forward (default 30)."
    )
    var noteLifetimeDays: Int64 = ServerLimits().defaultNoteLifetime.components.seconds / 86_400
    @Option(help: "The largest note, in bytes of JSON (default 1 MiB).")
    var maximumNoteBytes: Int = ServerLimits().maximumNoteBytes
    @Option(help: "Bytes of live notes one signing key may have (default 16 MiB).")
    var noteBytesPerKey: Int64 = ServerLimits().noteBytesPerKey
    @Option(help: "Bytes of live notes on the server (default 1 GiB).")
    var noteBytesTotal: Int64 = ServerLimits().noteBytesTotal
    @Option(help: "Failed credential attempts per source address and minute before 429 (default 30).")
    var authenticationFailuresPerMinute: Int = ServerLimits().authenticationFailuresPerMinute
    @Option(help: "Revision records one client may keep per datastore or channel (default 1000000).")
    var syncRecordsPerWriter: Int = ServerLimits().syncRecordsPerWriterAndType
    @Option(help: "Revision records one client may keep per document of a datastore or channel (default 10000).")
    var syncRevisionsPerDocument: Int = ServerLimits().syncRevisionsPerDocument
    @Option(help: "The largest attachment of a replicated datastore, in bytes (default 4 GiB).")
    var maximumAttachmentBytes: Int64 = ServerLimits().maximumAttachmentBytes
    @Option(help: "Attachment bytes one datastore or channel holds, all members' together (default 64 GiB).")
    var syncAttachmentBytes: Int64 = ServerLimits().syncAttachmentBytesPerType
    @Option(help: "The largest revision record's encrypted data, in bytes (default 2 MiB).")
    var maximumRevisionBytes: Int = ServerLimits().maximumRevisionRecordBytes
    @Option(help: "Seconds a live-replication long-poll may wait for a change (0 to 3600; default 25).")
    var maximumSyncWait: Int64 = ServerLimits().maximumSyncWait.components.seconds
    @Option(help: "Connections held open at most (default: half the file-descriptor limit, 16 to 4096).")
    var maximumConnections: Int = ConnectionLimits.defaultMaximumConnections
    @Option(help: "Seconds before an idle connection is closed (default 60).")
    var idleTimeout: Int64 = ConnectionLimits().idleTimeout.components.seconds
    @Option(help: "Seconds a request head may take to arrive (default 10).")
    var headerTimeout: Int64 = ConnectionLimits().headerTimeout.components.seconds
    @Option(help: "Seconds a request body gets, plus one per --body-minimum-rate bytes received (default 30).")
    var bodyTimeout: Int64 = ConnectionLimits().bodyTimeout.components.seconds
    @Option(help: "Bytes per second a request body must average to earn more time (default 1024).")
    var bodyMinimumRate: Int = ConnectionLimits().bodyMinimumRate
    @Flag(
        help:
            "Serve HTTPS with the certificate `tls init` made in the data directory, asking clients for certificates from its client CA when there is one (`ca init`)."
    )
    var tls = false
    @Option(help: "Serve HTTPS with this PEM certificate chain (leaf first); needs --tls-private-key.")
    var tlsCertificateChain: String?
    @Option(help: "The PEM private key of --tls-certificate-chain.") var tlsPrivateKey: String?
    @Option(
        help: "Ask TLS clients for certificates chaining to this PEM CA (e.g. <data>/ca/ca-chain.pem); needs TLS."
    )
    var tlsClientCA: String?
    @Option(help: "With --tls-client-ca: optional (the default) or required.")
    var clientCertificates: ClientCertificateMode = .optional
    @Option(help: "Hours a client certificate issued at enrollment or renewal is valid (default 24).")
    var clientCertificateHours: Int64 = 24
    @Option(help: "Certificates a client may obtain by enrollment or renewal in 24 hours (default 24).")
    var certificatesPerClientPerDay: Int = ServerLimits().certificatesPerClientPerDay
    @Option(
        help:
            "Refuse the requests of clients whose newest integrity report is compromised (or suspicious and worse) with integrity_refused."
    )
    var refuseIntegrity: String?
    @Option(
        help: "A file whose first line is the bearer token of GET /v1/admin/integrity. Env: STRONGROOM_ADMIN_TOKEN."
    )
    var adminTokenFile: String?
    @Option(
        help:
            "A file holding the token key (unpadded base64url of 32 bytes), the same for every instance. Env: STRONGROOM_TOKEN_KEY. Default: token.key in the data directory."
    )
    var tokenKeyFile: String?
    @OptionGroup var blobs: BlobStoreOptions
    @Flag(
        help:
            "This is the only instance on its PostgreSQL database: allow a local blob folder and a per-instance token key."
    )
    var singleInstance = false
    @Option(
        name: .customLong("keylog-witness"),
        help: ArgumentHelp(
            "Ask this witness to cosign each key log checkpoint: KEY@URL, its key from `witness key`. Repeatable.",
            valueName: "key@url"
        )
    )
    var keyLogWitnesses: [String] = []

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port is 0 to 65535 (0 picks a free one)") }
        if let refuseIntegrity, !["compromised", "suspicious"].contains(refuseIntegrity) {
            throw ValidationError("--refuse-integrity is compromised or suspicious")
        }
        if tls, tlsCertificateChain != nil || tlsPrivateKey != nil {
            throw ValidationError("--tls takes the data directory's certificate: no --tls-certificate-chain with it")
        }
        if (tlsCertificateChain == nil) != (tlsPrivateKey == nil) {
            throw ValidationError("--tls-certificate-chain and --tls-private-key go together")
        }
        guard (1...87_600).contains(clientCertificateHours) else {
            throw ValidationError("--client-certificate-hours is 1 to 87600 (ten years)")
        }
        if tlsClientCA != nil, tlsCertificateChain == nil, !tls {
            throw ValidationError("--tls-client-ca needs --tls-certificate-chain and --tls-private-key")
        }
        if publicURL == nil, !(host == "localhost" || host == "::1" || host.hasPrefix("127.")) {
            throw ValidationError("--public-url is required when --host is not a loopback address")
        }
        // Days become seconds: bounded so that the product cannot overflow.
        guard (1...36_500).contains(noteLifetimeDays) else {
            throw ValidationError("--note-lifetime-days is 1 to 36500")
        }
        for (name, value) in [
            ("--maximum-file-size", maximumFileSize), ("--presigned-url-lifetime", presignedURLLifetime),
            ("--idle-timeout", idleTimeout),
            ("--header-timeout", headerTimeout), ("--body-timeout", bodyTimeout),
            ("--note-bytes-per-key", noteBytesPerKey), ("--note-bytes-total", noteBytesTotal),
            ("--maximum-attachment-bytes", maximumAttachmentBytes), ("--sync-attachment-bytes", syncAttachmentBytes),
        ] where !(1...(Int64(1) << 50)).contains(value) {
            throw ValidationError("\(name) must be a positive number")
        }
        for (name, value) in [
            ("--notes-per-key", notesPerKey), ("--notes-total", notesTotal), ("--notes-per-source", notesPerSource),
            ("--authentication-failures-per-minute", authenticationFailuresPerMinute),
            ("--certificates-per-client-per-day", certificatesPerClientPerDay),
            ("--maximum-connections", maximumConnections), ("--body-minimum-rate", bodyMinimumRate),
            ("--maximum-note-bytes", maximumNoteBytes), ("--sync-records-per-writer", syncRecordsPerWriter),
            ("--maximum-revision-bytes", maximumRevisionBytes),
            ("--sync-revisions-per-document", syncRevisionsPerDocument),
        ] where !(1...(1 << 30)).contains(value) {
            throw ValidationError("\(name) must be a positive number")
        }
        guard (0...3600).contains(maximumSyncWait) else {
            throw ValidationError("--maximum-sync-wait must be 0 to 3600 seconds")
        }
    }

    func run() async throws {
        // Everything the server creates (database, WAL, blobs, keys) is owner-only.
        umask(0o077)
        var logger = Logger(label: "strongroom-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        var limits = ServerLimits()
        limits.maximumFileSize = maximumFileSize
        limits.presignedURLLifetime = .seconds(presignedURLLifetime)
        limits.notesPerKey = notesPerKey
        limits.notesTotal = notesTotal
        limits.notesPerSource = notesPerSource
        limits.defaultNoteLifetime = .seconds(noteLifetimeDays * 86_400)
        limits.maximumNoteBytes = maximumNoteBytes
        limits.noteBytesPerKey = noteBytesPerKey
        limits.noteBytesTotal = noteBytesTotal
        limits.authenticationFailuresPerMinute = authenticationFailuresPerMinute
        limits.certificatesPerClientPerDay = certificatesPerClientPerDay
        limits.maximumSyncWait = .seconds(maximumSyncWait)
        limits.syncRecordsPerWriterAndType = syncRecordsPerWriter
        limits.maximumRevisionRecordBytes = maximumRevisionBytes
        limits.syncRevisionsPerDocument = syncRevisionsPerDocument
        limits.maximumAttachmentBytes = maximumAttachmentBytes
        limits.syncAttachmentBytesPerType = syncAttachmentBytes
        var connections = ConnectionLimits()
        connections.maximumConnections = maximumConnections
        connections.idleTimeout = .seconds(idleTimeout)
        connections.headerTimeout = .seconds(headerTimeout)
        connections.bodyTimeout = .seconds(bodyTimeout)
        connections.bodyMinimumRate = bodyMinimumRate
        let tls = try serverTLS()
        // Checked like every secret file before anything starts (the TLS layer reads it again itself).
        if let tls { _ = try readSecretFile(tls.privateKeyPath, option: "--tls-private-key") }
        try requirePrivateTokenKeySource()
        var configuration = ServerConfiguration(
            dataDirectory: data.dataDirectory,
            host: host,
            port: port,
            registrationToken: registrationToken
                ?? ProcessInfo.processInfo.environment["STRONGROOM_REGISTRATION_TOKEN"],
            publicURL: publicURL,
            tls: tls,
            limits: limits,
            connections: connections,
            portFile: portFile,
            clientCertificateLifetime: .seconds(clientCertificateHours * 3600),
            integrityRefusal: refuseIntegrity.flatMap(IntegrityVerdict.init(rawValue:)),
            adminToken: try adminToken(),
            tokenKey: try tokenKeyFile.map {
                try parseTokenKey(try readSecretFile($0, option: "--token-key-file"), source: "--token-key-file")
            },
            blobStorage: blobs.blobStore,
            objectStore: try blobs.objectStore(),
            singleInstance: singleInstance
        )
        configuration.caDirectory = data.resolvedCADirectory
        configuration.keyLogWitnesses = try keyLogWitnesses.map(KeyLogWitnessEndpoint.init)
        // The data directory, database and first token are created inside, after the port is checked.
        try await ServeFailure.listening(host: host, port: port) {
            if let url = data.resolvedDatabaseURL {
                let app = try await buildPostgresApplication(
                    configuration: configuration,
                    databaseURL: url,
                    logger: logger
                )
                try await app.runService()
            } else {
                let app = try await buildEmbeddedApplication(configuration: configuration, logger: logger)
                try await app.runService()
            }
        }
    }
}

/// Why the server could not listen, in the operator's words rather than the socket call's.
struct ServeFailure: Error, CustomStringConvertible {
    let description: String

    /// Runs `serve`, a service listening on `host:port`, once `host:port` is found free; a failure to listen becomes
    /// a `ServeFailure`. Checking first means a start that cannot listen creates nothing `serve` would create before
    /// binding (another process can still take the port in between; then the service's own bind fails the same way).
    static func listening(host: String, port: Int, _ serve: () async throws -> Void) async throws {
        do {
            try await probe(host: host, port: port)
            try await serve()
        } catch let error as IOError where [EADDRINUSE, EACCES, EADDRNOTAVAIL].contains(error.errnoCode) {
            throw ServeFailure(listening: error.errnoCode, host: host, port: port)
        }
    }

    /// Binds `host:port` as the server will (address reuse on) and lets it go again; throws the bind's error. Port 0
    /// (any free port) needs no check.
    static func probe(host: String, port: Int) async throws {
        guard port != 0 else { return }
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: port).get()
        try await channel.close()
    }

    private init(listening errnoCode: Int32, host: String, port: Int) {
        description =
            switch errnoCode {
            case EADDRINUSE:
                "\(host):\(port) is in use (another server listens there): stop it or choose another --port"
            case EACCES:
                "\(host):\(port) may not be used by this user (ports below 1024 need privileges): choose another --port"
            default: "\(host) is not an address of this machine: choose another --host"
            }
    }
}

/// The text of a secret file named on the command line (`--token-key-file`, `--admin-token-file`,
/// `--tls-private-key`), refused like the data directory's own `token.key` when group or others may read it, and
/// read only up to 64 KiB.
func readSecretFile(_ path: String, option: String) throws -> String {
    guard let permissions = AtomicFile.permissions(of: path) else {
        throw ValidationError("\(option): \(path) does not exist or cannot be read")
    }
    guard permissions & 0o077 == 0 else {
        throw ValidationError(
            "\(option): \(path) is readable by group or others; it may have leaked: chmod 600 it (or replace it)"
        )
    }
    guard let handle = FileHandle(forReadingAtPath: path) else {
        throw ValidationError("\(option): \(path) cannot be read")
    }
    defer { try? handle.close() }  // read-only: closing loses nothing
    let data = try handle.read(upToCount: 64 << 10) ?? Data()
    guard let text = String(data: data, encoding: .utf8) else {
        throw ValidationError("\(option): \(path) is not UTF-8 text")
    }
    return text
}

extension Serve {
    /// HTTPS from `--tls` (the data directory's `tls init` files and client CA) or the files named, or nil.
    func serverTLS() throws -> ServerTLS? {
        if tls {
            let files = TLSCommand.Files(dataDirectory: data.dataDirectory)
            guard FileManager.default.fileExists(atPath: files.chain) else {
                throw ValidationError(
                    "--tls: \(files.folder) holds no server certificate: run `strongroom-server tls init` first"
                )
            }
            let clientCA = data.caFolder + "/ca-chain.pem"
            return ServerTLS(
                certificateChainPath: files.chain,
                privateKeyPath: files.key,
                clientCertificateAuthorityPath: tlsClientCA
                    ?? (FileManager.default.fileExists(atPath: clientCA) ? clientCA : nil),
                clientCertificates: clientCertificates
            )
        }
        guard let tlsCertificateChain, let tlsPrivateKey else { return nil }
        return ServerTLS(
            certificateChainPath: tlsCertificateChain,
            privateKeyPath: tlsPrivateKey,
            clientCertificateAuthorityPath: tlsClientCA,
            clientCertificates: clientCertificates
        )
    }

    /// The admin token from `--admin-token-file` or the environment (at least 32 characters), or nil.
    func adminToken() throws -> String? {
        var token = ProcessInfo.processInfo.environment["STRONGROOM_ADMIN_TOKEN"]
        if let adminTokenFile {
            let text = try readSecretFile(adminTokenFile, option: "--admin-token-file")
            token = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init)
        }
        guard let token, !token.isEmpty else { return nil }
        guard token.utf8.count >= 32, token.utf8.count <= 512 else {
            throw ValidationError("the admin token is 32 to 512 characters")
        }
        return token
    }
}
